/// When the next flip of a KMS display will complete, learnt from the flips it has done.
///
/// A real panel completes a flip at its next vblank, on a fixed grid; virtual drivers (bochs,
/// virtio-gpu) answer at once. The kernel stamps each flip event with the vblank time, so
/// a display whose flips keep waiting for the grid is predicted on that grid, and one that
/// answers at once is predicted to flip at once. The presenter uses the prediction to pick the
/// frame that is due when the picture will actually be seen.
public struct VblankPredictor: Sendable {
    public let refreshInterval: Double
    /// A flip that completes this much after it was asked for waited for a vblank.
    static let waitThreshold = 0.001
    /// How far from a whole number of refreshes (in refreshes) a vblank flip may land: the
    /// kernel's vblank timestamps are exact to microseconds; the refresh rate is the mode's
    /// nominal one.
    static let gridTolerance = 0.05
    /// Recent flips that waited, as bits (newest lowest); the last `window` flips count.
    private var waitedBits: UInt32 = 0
    private var flips = 0
    private static let window = 8
    private var lastFlip: Double?

    public init(refreshInterval: Double) {
        precondition(refreshInterval > 0)
        self.refreshInterval = refreshInterval
    }

    /// Records a flip asked for at `requested` that the display reported done at `completed`.
    public mutating func record(requested: Double, completed: Double) {
        // A vblank flip waited, and landed a whole number of refreshes after the one before.
        // A virtual GPU that is merely slow to answer (virtio-gpu in an emulator) waits too,
        // but off any grid.
        var onGrid = false
        if let lastFlip {
            let refreshes = (completed - lastFlip) / refreshInterval
            onGrid = refreshes > 0.5 && abs(refreshes - refreshes.rounded()) < Self.gridTolerance
        }
        let waited: UInt32 = completed - requested > Self.waitThreshold && onGrid ? 1 : 0
        waitedBits = (waitedBits << 1 | waited) & (1 << UInt32(Self.window) - 1)
        flips = Swift.min(flips + 1, Self.window)
        lastFlip = completed
    }

    /// True once most recent flips waited for the display: a vblank-paced panel.
    public var isVblankPaced: Bool {
        flips >= 3 && waitedBits.nonzeroBitCount * 2 > flips
    }

    /// The time a flip asked for at `host` would complete.
    public func expectedFlip(after host: Double) -> Double {
        guard isVblankPaced, let lastFlip else { return host }
        // The first vblank of the grid through the last flip that is after `host`.
        let ticks = Swift.max(1, ((host - lastFlip) / refreshInterval).rounded(.down) + 1)
        return lastFlip + ticks * refreshInterval
    }
}
