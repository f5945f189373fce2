import KioskBasics

/// Where an entry cut by a trigger, an insert, an override or a dark display comes back: where
/// the viewer left it, which is the clock's position on a box that keeps up.
///
/// On a box that falls behind (a starved decoder, a slow draw) the pacer drops frames that
/// come late and the clock runs on: the screen can stand a second behind it. CI's loaded bed
/// cut red at a clock of 5.5 s with 4.4 on screen (nothing later shown); resuming at the clock
/// skipped a second the viewer never saw. The entry resumes at the frame on screen instead
/// (seen again, which costs a frame, not a second of content), but only where there is
/// evidence that the screen fell behind: a screen that holds its frame on purpose stays with
/// the clock (a song's cover picture, a video stream whose end is queued before its sound's, a
/// long gap between two frames of a variable-rate file).
public enum ViewerPosition {
    /// - Parameters:
    ///   - clock: the entry's position on the clock when it was cut (from its start).
    ///   - shown: the position of the frame on screen (from its start); nil before the first
    ///     frame, for sound alone and for a picture held all along (a still, cover art).
    ///   - lastDropped: the last frame the pacer dropped in this run (from the start), if any.
    ///   - head: the next decoded frame's position (from the start), if one is queued.
    ///   - frameDuration: the item's frame duration.
    ///   - rate: the playback rate.
    ///   - endIsNext: the video's end comes after the frame on screen (its last frame holds).
    public static func of(clock: MediaTime, shown: MediaTime?, lastDropped: MediaTime?, head: MediaTime?,
                          frameDuration: MediaTime, rate: Rational = Rational(1, 1), endIsNext: Bool) -> MediaTime {
        // Within two frames the screen is between two of the pacer's decisions, not behind.
        // Faster than 1 the clock runs `rate` times the file's frames between the same flips
        // (and the pacer drops the ones no flip takes): the bar is 2 x rate frames then.
        let bar = rate.isKnownAndPositive && rate.doubleValue > 1 ? Rational(2 * rate.numerator, rate.denominator) : Rational(2, 1)
        guard let shown, shown >= .zero, clock - shown > frameDuration * bar, !endIsNext else { return clock }
        // The pacer dropped frames after the one on screen: they came too late to be shown.
        if let lastDropped, lastDropped > shown { return shown }
        // A frame was due and is still queued (the presenter is behind), or nothing is decoded
        // past the screen (the decoder is). A next frame still to come: a gap in the file.
        guard let head else { return shown }
        return head <= clock ? shown : clock
    }
}
