/// Where an outgoing item hands over to the next on the playback clock. A still lasts its
/// duration; a video ends one frame after its last frame, and that frame is held no longer
/// than a frame of the incoming clip, so the interval at the seam is never longer than the
/// incoming clip's own (25 fps into 30 fps: 33 ms, not 40). Pure; the presenter asks it.
public enum SeamTiming {
    /// - Parameters:
    ///   - length: where the item's stream says it ends (file time).
    ///   - lastPresented: the pts of its last frame on screen; nil before any.
    ///   - frameDuration: its own frame spacing.
    ///   - incomingFrameDuration: the next item's, when known.
    ///   - stillStart: for a still image, its start on the clock (it ends `length` after).
    public static func handOver(length: MediaTime, lastPresented: MediaTime?, frameDuration: MediaTime,
                                incomingFrameDuration: MediaTime?, stillStart: MediaTime? = nil) -> MediaTime {
        if let stillStart { return stillStart + length }
        guard let last = lastPresented else { return length }
        var hold = frameDuration
        if let incoming = incomingFrameDuration, incoming < hold { hold = incoming }
        return Swift.min(Swift.max(length, last), last + hold)
    }
}
