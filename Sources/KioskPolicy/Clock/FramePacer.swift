/// What the presenter does with the decoded frame at the head of its queue.
public enum FrameDecision: Sendable, Hashable {
    /// Convert it and flip it at the next refresh.
    case present
    /// Not due yet: come back at this host time (CLOCK_MONOTONIC).
    case wait(untilHost: MediaTime)
    /// Not due, and the clock is stopped (paused or waiting): come back when it runs.
    case waitForClock
    /// Too late: a newer frame is due already. Drop it (and count it).
    case drop
}

/// When a frame goes on screen, as a pure function of its pts, the clock and the display.
///
/// A frame is due when `pts <= clock + half a refresh`: it is shown at the refresh nearest to
/// its time, so a 30 fps video on a 60 Hz screen gets every frame exactly twice and 24 fps
/// gets the 3:2 cadence, with no frame early by more than half a refresh. A frame is dropped
/// when it is late by more than a frame, that is when the next frame is due too: then showing
/// this one would only delay the newer one (rate 2 on a screen as fast as the video drops
/// every other frame). The last frame in the queue is never dropped: late is better than a
/// hole. A stopped clock (paused, waiting) shows no frame past its position.
public enum FramePacer {
    /// - Parameters:
    ///   - framePTS: the frame's time on the clock's timeline.
    ///   - nextFramePTS: the following decoded frame's time, if one is already decoded.
    ///   - clock: a copy of the master clock.
    ///   - refreshInterval: the display's time between two refreshes.
    ///   - now: the host time the frame would reach the screen if presented: the next flip
    ///     when the display reports it, else the current time.
    public static func decide(framePTS: MediaTime, nextFramePTS: MediaTime?, clock: PlaybackClock,
                              refreshInterval: MediaTime, now: MediaTime) -> FrameDecision {
        let position = clock.mediaTime(atHost: now)
        let halfRefresh = refreshInterval * Rational(1, 2)
        // Half a refresh of host time is this much media time. A stopped clock names one frame
        // (the one at or before its position, shown after a paused seek): nothing past it is
        // due, or a paused screen would show a frame its time does not name, up to half a
        // refresh ahead (found on vkms: paused at 1.559 s, the screen at 1.567 s).
        let tolerance = clock.isRunning ? halfRefresh * clock.rate : .zero
        let horizon = position + tolerance

        if let next = nextFramePTS, next > framePTS, next <= horizon { return .drop }
        if framePTS <= horizon { return .present }
        guard let due = clock.hostTime(forMediaTime: framePTS) else { return .waitForClock }
        return .wait(untilHost: due - halfRefresh)
    }
}
