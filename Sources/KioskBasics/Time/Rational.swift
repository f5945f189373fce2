/// A reduced fraction: sample aspect ratios, frame rates, time bases, playback rates.
public struct Rational: Sendable, Hashable, CustomStringConvertible, Codable {
    public let numerator: Int64
    public let denominator: Int64

    /// Reduces and moves the sign to the numerator. A zero denominator is kept as 0/0, which
    /// FFmpeg uses for "unknown" (e.g. an unset sample aspect ratio).
    public init(_ numerator: Int64, _ denominator: Int64) {
        guard denominator != 0 else { self.numerator = 0; self.denominator = 0; return }
        let sign: Int64 = denominator < 0 ? -1 : 1
        let divisor = Swift.max(1, greatestCommonDivisor(Swift.abs(numerator), Swift.abs(denominator)))
        self.numerator = sign * numerator / divisor
        self.denominator = sign * denominator / divisor
    }

    public static let one = Rational(1, 1)

    /// False for 0/0 and for zero: FFmpeg's way of saying "not set".
    public var isKnownAndPositive: Bool { denominator > 0 && numerator > 0 }
    public var doubleValue: Double { denominator == 0 ? .nan : Double(numerator) / Double(denominator) }
    public var inverted: Rational { Rational(denominator, numerator) }
    public var description: String { "\(numerator)/\(denominator)" }
}

func greatestCommonDivisor(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (a, b)
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
