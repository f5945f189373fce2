/// A picture asked of the display hardware (`VideoOutput.beginReadBack`) that the driver writes
/// later: vkms composes it in a worker after the vblank, which a starved guest ran 5-20 s late
/// (CI). Waited for on a thread of its own, so the presenter flips on meanwhile; any number of
/// threads may read it.
public protocol ScreenReadBack: AnyObject, Sendable {
    /// Waits at most `timeout` seconds for the picture, then lets `body` see it (only during
    /// the call). Throws when it did not come in time or the driver failed.
    func read(timeout: Double, _ body: (PixelBuffer) -> Void) throws
}

extension VideoOutput {
    /// The display's own picture, waited for here (at most `timeout` seconds): false where the
    /// display cannot read back (`beginReadBack`). For callers that may wait: a probe, a check.
    public func readBack(timeout: Double, _ body: (PixelBuffer) -> Void) throws -> Bool {
        guard let pending = try beginReadBack() else { return false }
        try pending.read(timeout: timeout, body)
        return true
    }
}
