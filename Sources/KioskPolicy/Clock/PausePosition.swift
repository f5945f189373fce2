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
/// - the clock stopped a hair short of the next frame (the pause was taken as that frame fell
///   due: CI's loaded bed paused at 2.399999 s with 2.36 on screen and 2.40 queued). By the
///   [pts, next pts) rule that names the frame on screen, but times travel as decimals (the
///   control socket's microseconds, the page's and the log's milliseconds) and
///   `kiosk snapshot --at` rounds to 1/90000 s: each of those reads it as the next frame. A
///   clock less than `readingPrecision` short of the next frame moves up to it, which the
///   stopped pacer then shows (not decoded yet, the next frame is taken to be a frame period
///   after the one on screen; if it comes later, the moved clock still names the screen's).
public enum PausePosition {
    /// The finest step a reading of the time is sure to keep (the log's and the web page's
    /// milliseconds, rounded): a stopped clock nearer than this to a frame names that frame.
    public static let readingPrecision = MediaTime(value: 1, timescale: 1000)

    /// - Parameters:
    ///   - position: the clock's position when it stopped.
    ///   - shown: the pts of the frame on screen.
    ///   - lastDropped: the last frame the pacer dropped in this run of the timeline, if any.
    ///   - head: the next decoded frame's pts (of the timeline in force), if one is queued.
    ///   - frameDuration: the item's frame duration (what one frame of the clock's travel is).
    ///   - endIsNext: the item's end comes after the frame on screen (no frame follows it).
    /// - Returns: where the clock stands instead, or nil where it already names the screen's
    ///   frame or one the stopped pacer will still show.
    public static func settle(position: MediaTime, shown: MediaTime, lastDropped: MediaTime?, head: MediaTime?,
                              frameDuration: MediaTime, endIsNext: Bool = false) -> MediaTime? {
        if shown > position { return shown }
        guard let dropped = lastDropped, dropped > shown, dropped <= position else {
            guard let next = head ?? (endIsNext ? nil : shown + frameDuration) else { return nil }
            return nextFrameWithinReading(position: position, next: next)
        }
        guard let head else { return shown }
        if head <= position { return nil }   // due at the stopped clock: the pacer shows it
        return head - position <= frameDuration ? head : shown
    }

    /// The next frame when the stopped clock is short of it by less than a reading keeps.
    private static func nextFrameWithinReading(position: MediaTime, next: MediaTime) -> MediaTime? {
        next > position && next - position < readingPrecision ? next : nil
    }
}
