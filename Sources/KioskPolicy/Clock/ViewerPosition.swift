import KioskBasics

/// Where an entry cut by a trigger, an insert, an override or a dark display comes back: where
/// the viewer left it, which is the clock's position on a box that keeps up.
///
/// On a box that falls behind (a starved decoder, a slow draw) the pacer drops frames that
/// come late and the clock runs on: the screen can stand a second behind it. CI's loaded bed
/// cut red at a clock of 5.5 s with 4.4 on screen (nothing later shown); resuming at the clock
/// skipped a second the viewer never saw. Where the clock has run more than two frames past
/// the frame on screen, the entry resumes at that frame instead (seen again, which costs a
/// frame, not a second of content).
public enum ViewerPosition {
    /// - Parameters:
    ///   - clock: the entry's position on the clock when it was cut (from its start).
    ///   - shown: the position of the frame on screen (from its start); nil before the first
    ///     frame, for sound alone and for a still (whose one frame stays on screen all along).
    ///   - frameDuration: the item's frame duration.
    public static func of(clock: MediaTime, shown: MediaTime?, frameDuration: MediaTime) -> MediaTime {
        guard let shown, shown >= .zero, clock - shown > frameDuration * Rational(2, 1) else { return clock }
        return shown
    }
}
