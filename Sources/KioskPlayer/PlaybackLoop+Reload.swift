import KioskCore

/// What a live reload of kiosk.conf changes in a playing QueuePlayer; nil fields stay as they
/// are (a reload that did not touch a setting must not undo what keys or touch did to it).
public struct PlayerReload: Sendable, Equatable {
    /// The new playlist. The item on screen plays on when it is still in it.
    public var entries: [PlaylistEntry]?
    public var loopMode: PlaybackConfig.LoopMode?
    /// The default gravity, from the next frame on (items with their own gravity keep it).
    public var gravity: VideoGravity?
    /// For still images opened from now on; the one on screen keeps its time.
    public var imageDuration: MediaTime?
    /// The stall guard's timeout, from the next look at the item on screen.
    public var stallTimeout: MediaTime?
    /// The rate `play` uses; a playing player changes speed at once, a paused one stays paused.
    public var defaultRate: Rational?
    public var volume: Int?
    public var isMuted: Bool?

    public init() {}

    public var isEmpty: Bool { self == PlayerReload() }
}

extension PlaybackLoop {
    /// Applies a reload on the presenter thread, between two frames.
    func applyReload(_ reload: PlayerReload) {
        if let gravity = reload.gravity { options.gravity = gravity }
        if let imageDuration = reload.imageDuration { options.imageDuration = imageDuration }
        if let stallTimeout = reload.stallTimeout { options.stallTimeout = stallTimeout }
        if let loopMode = reload.loopMode { cursor.loopMode = loopMode }
        if reload.entries != nil || reload.loopMode != nil || reload.imageDuration != nil {
            // The item prepared for the seam was chosen (and a still's duration set) by the
            // old settings: prepare again by the new ones.
            upcoming?.close()
            upcoming = nil
            updateAudioOrder()
        }
        if let entries = reload.entries {
            switch cursor.replace(entries: entries) {
            case .keptCurrent(let index):
                // The current item plays on; its new options (gravity, volume) take effect now,
                // its trim, duration and loop count from its next play.
                current?.index = index
                current?.entry = entries[index]
            case .currentRemoved, .notStarted:
                begin(cursor.advance(), seamFrom: nil)
            }
            finished = false
        }
        if let rate = reload.defaultRate {
            apply(.setDefaultRate(rate))
            if state.rate.numerator != 0 { apply(.setRate(rate)) }
        }
        if let volume = reload.volume { apply(.setVolume(volume)) }
        if let muted = reload.isMuted { apply(.setMuted(muted)) }
        applyVolume()   // an item's own volume or mute may have changed
        publishSnapshot()
    }
}
