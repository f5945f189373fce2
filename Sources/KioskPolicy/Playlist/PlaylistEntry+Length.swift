extension PlaylistEntry {
    /// One play of the entry as the user sees it: a still's duration (an animated picture's
    /// looped for one too: `AnimationLoop`), else the media's length
    /// (`mediaSeconds`, as the container says) cut to the item's `start` and `end`; nil when
    /// unknown (a stream, a capture device). The engine's item duration and the synchronised
    /// timeline's slots both come from here, so they agree to the tick.
    public func playLength(mediaSeconds: Double?, imageDuration: MediaTime) -> MediaTime? {
        if isStillImage { return item.duration ?? imageDuration }
        if let loop = animationLoop { return loop.duration }   // an animation looped for its `duration`
        let start = item.start ?? .zero
        guard let mediaSeconds else { return item.end.map { $0 - start } }
        var end = MediaTime(seconds: mediaSeconds)
        if let trimEnd = item.end, trimEnd < end { end = trimEnd }
        return Swift.max(.zero, end - start)
    }
}
