import Foundation
import KioskCore
import KioskMedia

/// The stall guard's hook in the presenter (issue 12; the policy is `StallGuard`, pure): a
/// local item that should be playing but shows no new frame and makes no audio progress for
/// `stall_timeout` is ended as failed (one log line, `item_failed`) and the playlist goes on.
/// While progress is overdue in a state that claims to be playing (network items too), the
/// heartbeat says since when, and the service watchdog goes unfed once that lasts.
extension PlaybackLoop {
    /// Whether the item on screen should be making progress now: not paused, not finished,
    /// and (for a network item) not waiting for data, which has its own rules.
    private func expectsProgress(from item: ActiveItem?) -> Bool {
        guard let item, state.rate.numerator != 0, !finished, !settings.untimed, idleUntil == nil else { return false }
        if state.timeControlStatus == .playing { return true }
        // A local file that ran dry, or that takes this long to open, is not buffering.
        return !item.pipeline.isNetwork
    }

    /// Once per turn of the loop: counts, ends a stalled local item, tells the heartbeat
    /// (nothing overdue while nothing should play: paused, idle, finished).
    func watchForStall() {
        let now = MonotonicClock.hostTime()
        stallGuard.timeout = settings.playback.stallTimeout
        if expectsProgress(from: current) {
            stallGuard.expectProgress(at: now)
        } else {
            stallGuard.standDown()
        }
        defer { mailbox.heartbeat.progress(overdueSince: stallGuard.overdueSince?.seconds) }
        guard let item = current, !item.pipeline.isNetwork, stallGuard.isStalled(at: now),
              let since = stallGuard.overdueSince else { return }
        let position = String(format: "%.1f", currentTime.seconds)
        let seconds = String(format: "%.1f", (now - since).seconds)
        fail(item, MediaError(source: item.plan.source,
                              reason: "stalled: no new frame and no sound for \(seconds) s while playing (at \(position) s)"))
        // The next item (begin noted it) or the idle screen counts afresh.
        if current == nil || finished || idleUntil != nil { stallGuard.standDown() }
    }

    /// A new frame is on screen, the sound was heard further, or an item or seek starts afresh.
    func noteProgress() {
        stallGuard.progressed(at: MonotonicClock.hostTime())
    }

    /// The presenter waits for a frame due at `due`: believed up to a few frame periods
    /// (`FrameTimeline`'s longest step) after the last progress, or a real gap where its
    /// timeline keeps them.
    func noteAwaitedFrame(dueAt due: MediaTime, of item: ActiveItem) {
        stallGuard.awaiting(dueAt: due, longestWait: item.longestFrameWait)
    }

    /// The presenter waits for a still image's end, whose length kiosk.conf set.
    func noteAwaitedEnd(dueAt due: MediaTime, of item: ActiveItem) {
        stallGuard.awaiting(dueAt: due, longestWait: item.plan.stillDuration == nil ? item.expectedFrameDuration * Rational(4, 1) : nil)
    }

    /// A wait the presenter chose, cut short where the stall guard must look again.
    func waitWatched(untilHost until: MediaTime) {
        var wake = until
        if let since = stallGuard.overdueSince, since + stallGuard.timeout < wake { wake = since + stallGuard.timeout }
        mailbox.wait(untilHost: wake)
    }
}
