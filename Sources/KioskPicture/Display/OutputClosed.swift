/// An output's error that can say the output itself was closed under the caller: the session
/// gave the screen back while the presenter was still inside a draw or a commit (a stop not
/// obeyed within its grace time). That is no fault of a plane, a frame or the screen, so the
/// presenter neither takes a fallback for it (a plane path turned off for good) nor reports it
/// as a display failure; it only stops drawing.
public protocol OutputFailure: Error {
    /// True when the output was closed, false for every real failure.
    var isOutputClosed: Bool { get }
}

/// Whether `error` says only that the output was closed (see `OutputFailure`).
public func outputWasClosed(_ error: any Error) -> Bool {
    (error as? OutputFailure)?.isOutputClosed == true
}
