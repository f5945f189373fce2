/// Where a clock that has just stopped stands, so that the screen, `currentTime`, a snapshot
/// taken at it and a screenshot all name one frame (a frame names [pts, next pts)).
///
/// The presenter decides for the coming flip, and on a busy box it drops frames that come late;
/// a pause falls between those decisions. Two ways the stopped clock and the screen part:
/// - the screen already shows a frame a little past the clock (put up for the flip ahead):
///   the clock moves up to it;
/// - the pacer dropped the frame the clock names for the one after it (it was due at the flip
///   it decided for), and the clock stopped short of that one: the screen would keep the frame
///   before the dropped one. Found on vkms under a ticker (paused at 1.198 s, 1.16 dropped for
///   1.20, the screen at 1.12) and in CI's loaded bed on the CPU path (paused at 1.510 s, 1.48
///   dropped, the screen at 1.32 while 1.52 waited for a clock that never came). The clock
///   moves up to the frame after the dropped one when it is decoded and less than a frame
///   away, which the stopped clock's pacer then shows; otherwise (not decoded yet, or a long
///   gap in a variable-rate file) back to the frame on screen, which is the one thing sure to
///   be there.
public enum PausePosition {
    /// - Parameters:
    ///   - position: the clock's position when it stopped.
    ///   - shown: the pts of the frame on screen.
    ///   - lastDropped: the last frame the pacer dropped in this run of the timeline, if any.
    ///   - head: the next decoded frame's pts (of the timeline in force), if one is queued.
    ///   - frameDuration: the item's frame duration (what one frame of the clock's travel is).
    /// - Returns: where the clock stands instead, or nil where it already names the screen's
    ///   frame or one the stopped pacer will still show.
    public static func settle(position: MediaTime, shown: MediaTime, lastDropped: MediaTime?, head: MediaTime?,
                              frameDuration: MediaTime) -> MediaTime? {
        if shown > position { return shown }
        guard let dropped = lastDropped, dropped > shown, dropped <= position else { return nil }
        guard let head else { return shown }
        if head <= position { return nil }   // due at the stopped clock: the pacer shows it
        return head - position <= frameDuration ? head : shown
    }
}
