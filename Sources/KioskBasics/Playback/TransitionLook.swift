/// What one flip shows: the current item's picture at weight `incoming` over the outgoing
/// item's held picture (1: only the current one), the result at brightness `level` (0: black).
/// Both in 1/255 steps, as they are blended, so what a stats line says is what was drawn.
public struct TransitionLook: Sendable, Hashable {
    /// 0...255: the current picture's weight over the held one.
    public var incoming: Int
    /// 0...255: the brightness.
    public var level: Int

    public static let plain = TransitionLook(incoming: 255, level: 255)

    public init(incoming: Int, level: Int) {
        self.incoming = Swift.min(255, Swift.max(0, incoming))
        self.level = Swift.min(255, Swift.max(0, level))
    }

    /// Fractions 0...1, rounded to the nearest 1/255.
    public init(incomingFraction: Double, levelFraction: Double) {
        self.init(incoming: Self.steps(incomingFraction), level: Self.steps(levelFraction))
    }

    public var isPlain: Bool { incoming == 255 && level == 255 }

    private static func steps(_ fraction: Double) -> Int {
        fraction.isFinite ? Int((Swift.min(1, Swift.max(0, fraction)) * 255).rounded()) : 255
    }
}
