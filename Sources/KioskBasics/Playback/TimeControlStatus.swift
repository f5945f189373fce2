/// The player's state in AVFoundation's words, below the state machine (`PlaybackState`) so that
/// what draws it (the overlay) need not know the machine.

/// What the player is doing with time, as `AVPlayer.TimeControlStatus`.
public enum TimeControlStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// The rate is 0: the user (or an item end) paused.
    case paused
    /// The rate is not 0 but time does not advance yet; see `WaitingReason`.
    case waitingToPlayAtSpecifiedRate
    /// Time advances at the rate.
    case playing

    public var description: String { rawValue }
}

/// Why the player is `waitingToPlayAtSpecifiedRate`, as `AVPlayer.WaitingReason`.
public enum WaitingReason: String, Sendable, Hashable, CustomStringConvertible {
    /// No current item, the current item failed, or it ended and nothing follows yet
    /// (AVFoundation's `noItemToPlay`).
    case noItemToPlay
    /// The current item is still being opened and probed (AVFoundation's
    /// `evaluatingBufferingRate`: the player cannot tell yet whether it can play).
    case openingItem
    /// The item is open but no decoded frame is ready: first priming, after a seek, or the
    /// decoders ran dry (AVFoundation's `toMinimizeStalls`).
    case buffering

    public var description: String { rawValue }
}
