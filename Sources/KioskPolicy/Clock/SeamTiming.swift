/// Where an outgoing item hands over to the next on the playback clock. A still lasts its
/// duration; a video ends one frame after its last frame, and that frame is held no longer
/// than a frame of the incoming clip, so the interval at the seam is never longer than the
/// incoming clip's own (25 fps into 30 fps: 33 ms, not 40). A last frame the file itself holds
/// longer (a GIF ending on its logo for 3 s, a variable-frame-rate clip ending on a still
/// moment) is held its own time, as every frame before it was. Sound that goes on past that by
/// more than `soundTail` is the item's too (a song under its cover, a slideshow shorter than
/// its music): the last frame holds until it ends, as every player does. Less is a codec's
/// padding, and the seam stays a frame after the last frame. Pure; the presenter asks it.
public enum SeamTiming {
    /// More than an encoder's padding and priming (AAC 21-46 ms, MP3 ~50, Opus 80), less than
    /// words or music anyone would miss.
    public static let soundTail = MediaTime(value: 1, timescale: 4)
    /// A last frame the file holds longer than this is held for its own time: a frame a viewer
    /// sees standing. Shorter, it is a video's frame, evened to the incoming clip's at the seam
    /// (a 25 fps frame shortened by 7 ms into 30 fps is not seen; a 3 s logo cut to 40 ms is).
    public static let ownHoldBar = MediaTime(value: 1, timescale: 10)

    /// - Parameters:
    ///   - length: where the item's streams say it ends (file time): the furthest end of any
    ///     packet demuxed, cut at the item's `end`.
    ///   - lastPresented: the pts of its last frame on screen; nil before any.
    ///   - frameDuration: its own frame spacing.
    ///   - incomingFrameDuration: the next item's, when known.
    ///   - stillStart: for a still image, its start on the clock (it ends `length` after).
    ///   - soundEnd: where the item's played sound ends, nil without sound: the seam waits for
    ///     it (never past `length`). Its own end, not `length`, which a picture's packet of a
    ///     bogus duration can carry far past the picture.
    ///   - pictureEnd: where the file says the last frame shown ends (its pts plus its own
    ///     duration, its packet's), nil when it does not say.
    ///   - longestHold: the longest a frame's own time is believed for this item, as between
    ///     its frames (`FrameTimelineTuning`: 10 s where gaps are kept); longer is a damaged
    ///     duration, and the seam is a frame after the last frame as before.
    public static func handOver(length: MediaTime, lastPresented: MediaTime?, frameDuration: MediaTime,
                                incomingFrameDuration: MediaTime?, stillStart: MediaTime? = nil,
                                soundEnd: MediaTime? = nil, pictureEnd: MediaTime? = nil,
                                longestHold: MediaTime = .zero) -> MediaTime {
        if let stillStart { return stillStart + length }
        guard let last = lastPresented else { return length }
        var hold = frameDuration
        if let incoming = incomingFrameDuration, incoming < hold { hold = incoming }
        var end = last + hold
        if let pictureEnd, pictureEnd - last > Swift.max(hold, ownHoldBar), pictureEnd - last <= longestHold {
            // The file's own hold. Its sound, where it plays, says where the item ends when it
            // stops sooner: a picture packet's long duration alone is not believed over it.
            end = soundEnd.map { Swift.min(pictureEnd, Swift.max($0, end)) } ?? pictureEnd
        }
        if let soundEnd, soundEnd > end + soundTail { return Swift.min(soundEnd, length) }
        return Swift.min(Swift.max(length, last), end)
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
