/// When a stream's video and the master clock have drifted apart beyond what any real file
/// does, and by how much to move the video's times so its frame is due now (issue 12).
///
/// A damaged AVI index stamped every video frame 327 s after its sound: the first frame set
/// the clock to 327 s, the sound pulled it back to 0, and the next frame would have been due
/// in five minutes. `FrameTimeline` keeps one stream's steps sane; this keeps the streams
/// together: the sound leads (or the monotonic clock without sound), and a video that is
/// further ahead than the presenter may wait for a frame (`longestWait`: a few frame periods,
/// or a real gap the sound plays through), or further behind than `longestLate`, is moved to
/// the clock. mpv does the like by resynchronising after an "Invalid video timestamp" (its
/// 5 s for formats whose timestamps may reset). Pure.
public enum VideoAlignment {
    /// Late frames are the pacer's to drop; only a video this far behind is moved.
    public static let longestLate = MediaTime(value: 10, timescale: 1)

    /// The shift to add to the video's times, or nil when the frame at `framePTS` is within
    /// `longestWait` ahead of the clock's `position` and `longestLate` behind it.
    public static func shift(framePTS: MediaTime, position: MediaTime, longestWait: MediaTime,
                             longestLate: MediaTime = VideoAlignment.longestLate) -> MediaTime? {
        if framePTS - position > longestWait || position - framePTS > longestLate {
            return position - framePTS
        }
        return nil
    }

    /// How far ahead of the clock a frame may legitimately be: a few frame periods of its
    /// stream (`FrameTimeline`'s longest step) and a frame, or a real gap where its
    /// `FrameTimeline` keeps them.
    public static func longestWait(cadence: MediaTime, tuning: FrameTimelineTuning) -> MediaTime {
        Swift.max(cadence * Rational(tuning.cadenceFactor, 1), tuning.longestGap) + cadence
    }
}
