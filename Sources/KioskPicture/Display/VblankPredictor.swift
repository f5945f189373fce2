/// When the next flip of a KMS display will complete.
///
/// A panel driven by a driver with vblank support completes a flip at its next vblank, on a
/// fixed grid that the flip events' timestamps (taken at vblank) trace; virtual GPUs without
/// vblank support (bochs, virtio-gpu, simpledrm) answer at once. The kernel says which it is:
/// it answers a CRTC's vblank-sequence query only where vblanks exist. The presenter uses the
/// prediction to pick the frame that is due when the picture will actually be seen.
public struct VblankPredictor: Sendable {
    public let refreshInterval: Double
    /// The latest vblank known: the last flip's, or the one the kernel reported at the start;
    /// nil for a driver without vblanks.
    private var lastVblank: Double?
    /// Flips complete on the vblank grid (else at once).
    public var isVblankPaced: Bool { lastVblank != nil }

    /// `lastVblank`: the time of a vblank the kernel reported, or nil when the driver has no
    /// vblanks (flips complete at once).
    public init(refreshInterval: Double, lastVblank: Double?) {
        precondition(refreshInterval > 0)
        self.refreshInterval = refreshInterval
        self.lastVblank = lastVblank
    }

    /// Records the completion time of a flip, as its event reported it.
    public mutating func record(flip: Double) {
        if isVblankPaced { lastVblank = flip }
    }

    /// The time a flip asked for at `host` would complete: at once without vblanks, else at
    /// the first vblank of the grid strictly after `host` (and after the last flip: two flips
    /// never complete on one vblank).
    public func expectedFlip(after host: Double) -> Double {
        guard let lastVblank else { return host }
        let ticks = Swift.max(1, ((host - lastVblank) / refreshInterval).rounded(.down) + 1)
        return lastVblank + ticks * refreshInterval
    }
}
