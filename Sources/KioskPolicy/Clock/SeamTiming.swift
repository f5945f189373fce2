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

    /// How the presenter waits for the seam at `seam` (media time on `clock`) once the
    /// outgoing item has no more frames and the next is not ready to take over early.
    public enum Wait: Sendable, Equatable {
        /// The seam is here (within half a refresh): move on.
        case none
        /// The clock stands (paused, waiting): look again shortly.
        case forClock
        /// Until this host time: half a refresh before the seam, so the next picture can make
        /// the refresh the seam falls on.
        case until(MediaTime)
    }

    public static func wait(before seam: MediaTime, clock: PlaybackClock, now: MediaTime, refreshInterval: MediaTime) -> Wait {
        guard clock.isRunning else { return .forClock }
        guard clock.mediaTime(atHost: now) < seam, let due = clock.hostTime(forMediaTime: seam) else { return .none }
        let wake = due - refreshInterval * Rational(1, 2)
        return wake > now ? .until(wake) : .none
    }

    /// Whether the item after the current one should be opened now: once the current one is
    /// within `lead` of its end, so the next first frame is decoded before the seam. An item
    /// of unknown length says when it ends, so nothing is opened early for it, except a still
    /// (its length is kiosk.conf's) once it is open.
    /// - Parameters: `duration` and `start`: the current item's length after trimming (when
    ///   known) and its trim start; `position`: the clock now, in file time.
    public static func isTimeToPrepareNext(duration: MediaTime?, start: MediaTime, position: MediaTime, lead: MediaTime,
                                           isOpen: Bool, isStill: Bool) -> Bool {
        if let duration { return duration + start - position <= lead }
        return isOpen && isStill
    }
}
