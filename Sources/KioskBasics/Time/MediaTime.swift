/// A point or span on a media timeline as an exact fraction of seconds, like CMTime:
/// `value / timescale` seconds. Arithmetic is exact (common timescale, 128-bit intermediates),
/// so looping for months accumulates no rounding drift.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let value: Int64
    public let timescale: Int32

    public init(value: Int64, timescale: Int32) {
        precondition(timescale > 0, "MediaTime timescale must be positive")
        self.value = value
        self.timescale = timescale
    }

    /// The nearest time to `seconds` at `timescale` ticks per second.
    public init(seconds: Double, timescale: Int32 = 90_000) {
        self.init(value: Int64((seconds * Double(timescale)).rounded()), timescale: timescale)
    }

    /// `ticks` of a time base such as FFmpeg's stream time_base (e.g. 1/90000).
    public init(ticks: Int64, timeBase: Rational) {
        precondition(timeBase.isKnownAndPositive, "time base must be positive")
        if timeBase.numerator == 1, timeBase.denominator <= Int64(Int32.max) {
            self.init(value: ticks, timescale: Int32(timeBase.denominator))
        } else {
            // Rare bases (e.g. 1001/30000): keep exact when it fits, else round at 1/90000 s.
            let product = Int128(ticks) * Int128(timeBase.numerator)
            if timeBase.denominator <= Int64(Int32.max), let value = Int64(exactly: product) {
                self.init(value: value, timescale: Int32(timeBase.denominator))
            } else {
                self.init(seconds: Double(ticks) * timeBase.doubleValue)
            }
        }
    }

    public static let zero = MediaTime(value: 0, timescale: 1)

    public var seconds: Double { Double(value) / Double(timescale) }

    /// This time counted in ticks of `timeBase`, rounded to the nearest tick.
    public func ticks(in timeBase: Rational) -> Int64 {
        let numerator = Int128(value) * Int128(timeBase.denominator)
        let denominator = Int128(timescale) * Int128(timeBase.numerator)
        return Int64(clamping: dividedRoundingToNearest(numerator, denominator))
    }

    public func clamped(to range: ClosedRange<MediaTime>) -> MediaTime {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }

    public var description: String { "\(value)/\(timescale)s" }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) < Int128(rhs.value) * Int128(lhs.timescale)
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        Int128(lhs.value) * Int128(rhs.timescale) == Int128(rhs.value) * Int128(lhs.timescale)
    }

    public func hash(into hasher: inout Hasher) {
        let divisor = Swift.max(1, greatestCommonDivisor(Swift.abs(value), Int64(timescale)))
        hasher.combine(value / divisor)
        hasher.combine(Int64(timescale) / divisor)
    }

    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs) { $0 + $1 }
    }

    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        combine(lhs, rhs) { $0 - $1 }
    }

    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Scales a span by a rational factor (a playback rate), exactly where the result fits.
    public static func * (lhs: MediaTime, factor: Rational) -> MediaTime {
        let value = Int128(lhs.value) * Int128(factor.numerator)
        let scale = Int128(lhs.timescale) * Int128(factor.denominator)
        return reduced(value: value, timescale: scale)
    }

    /// Both operands on their least common timescale; past Int32 the finer one wins and the
    /// other is rounded to it (only for exotic mixes of time bases).
    private static func combine(_ a: MediaTime, _ b: MediaTime, _ op: (Int128, Int128) -> Int128) -> MediaTime {
        if a.timescale == b.timescale {
            return reduced(value: op(Int128(a.value), Int128(b.value)), timescale: Int128(a.timescale))
        }
        let gcd = Int128(greatestCommonDivisor(Int64(a.timescale), Int64(b.timescale)))
        let lcm = Int128(a.timescale) / gcd * Int128(b.timescale)
        let lhs = Int128(a.value) * (lcm / Int128(a.timescale))
        let rhs = Int128(b.value) * (lcm / Int128(b.timescale))
        return reduced(value: op(lhs, rhs), timescale: lcm)
    }

    private static func reduced(value: Int128, timescale: Int128) -> MediaTime {
        var (v, s) = (value, timescale)
        if s < 0 { (v, s) = (-v, -s) }
        var x = v < 0 ? -v : v, y = s
        while y != 0 { (x, y) = (y, x % y) }
        if x > 1 { v /= x; s /= x }
        if s <= Int128(Int32.max), let exact = Int64(exactly: v) {
            return MediaTime(value: exact, timescale: Int32(s))
        }
        let fine: Int128 = 1_000_000_000 // past Int32 timescales: nanoseconds, rounded
        let rescaled = dividedRoundingToNearest(v * fine, s)
        return MediaTime(value: Int64(clamping: rescaled), timescale: 1_000_000_000)
    }
}

func dividedRoundingToNearest(_ numerator: Int128, _ denominator: Int128) -> Int128 {
    let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
    let twice = (r < 0 ? -r : r) * 2
    let d = denominator < 0 ? -denominator : denominator
    guard twice >= d else { return q }
    return (numerator < 0) != (denominator < 0) ? q - 1 : q + 1
}
