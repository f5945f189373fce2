import KioskCore

/// A timed picture goes up at the flip it was drawn for, never before: what is drawn for a flip
/// (the frame the pacer chose, a ticker's position, a transition's look) is right for that flip
/// alone. An untimed one (a first frame, whose flip sets the clock; an overlay's redraw; an
/// override) goes up as soon as it can, unless a ticker or a transition drawn with it makes it
/// timed.
extension FramePresenter {
    /// Waits until asking for the flip of a picture drawn for `flip` (CLOCK_MONOTONIC seconds)
    /// puts it up then, when asking now would put it up sooner; at most a quarter second (an
    /// estimate, not a schedule).
    /// - A display whose flips complete when asked: until `flip`. Without the wait a frame went
    ///   up early by the difference: 43-51 ms in a virtio-gpu guest whose draws had slowed under
    ///   load and then sped up (CI, 2026-11-28).
    /// - A vblank grid: until the vblank before `flip` has passed (a quarter of a refresh after
    ///   it, slack for a grid traced from flip events). A picture drawn faster than its estimate
    ///   (`drawSeconds`, smoothed) went up a refresh early: a video frame before its moment, and
    ///   a ticker placed for the later flip two steps on at once, then one behind (CI, 2026-11-29).
    func holdUntilItsFlip(_ flip: Double) {
        let clock = MonotonicClock()
        let now = clock.now()
        if output.flipsWhenAsked {
            clock.sleep(seconds: min(flip - now, 0.25))
            return
        }
        // A mirror or span copies the picture onto each screen before it asks (`presentDrawsFirst`):
        // held, the copy would start too late for the vblank. (MultiScreenOutput says neither
        // grid nor at-once today: its frames are not held at all.)
        guard output.flipsOnVblankGrid, !output.presentDrawsFirst else { return }
        let refresh = output.refreshInterval.seconds
        guard output.expectedFlip(after: now) < flip - refresh / 2 else { return }
        clock.sleep(seconds: min(flip - refresh * 0.75 - now, 0.25))
    }

    /// The margin the pacer's aim keeps before a vblank tick: a frame is chosen for the first
    /// flip after its draw (`drawSeconds`, smoothed) and this. Without it, a frame decided just
    /// before a tick (the pacer woke half a refresh before a frame was due, anywhere on the
    /// grid; now early by `drawLead` too) was aimed at that tick and missed it when the draw
    /// took a few microseconds more than its average: a refresh late, showing a frame chosen
    /// for the flip before (test_sync's stats, 2026-11-29: ~1 flip in 250 on an idle host, each
    /// decided 0.26 ms before its tick with 0.27 ms of draw foreseen). CommitLead's rule: 1 ms,
    /// a millisecond more at each miss, half a one less after 120 flips on their tick; never
    /// above a quarter of a refresh nor half what a refresh leaves after the draw: decided just
    /// after a flip, a 60 fps frame must still aim at the next tick, or every other frame is
    /// dropped. Displays off a grid: none (no tick to miss).
    var aimMargin: Double {
        guard output.flipsOnVblankGrid else { return 0 }
        let refresh = output.refreshInterval.seconds
        return min(aimLeadForThisScreen().seconds, max(0, (refresh - drawSeconds) / 2))
    }

    /// A plane's commit flips when asked: a timed frame the plane takes waits there, like the
    /// CPU path's once drawn, for the flip it was chosen for (on a vblank grid).
    func holdOnPlane(_ shown: PresentedFrame, timed: Bool) {
        guard timed, output.flipsOnVblankGrid, let aim = shown.aim else { return }
        holdUntilItsFlip(aim)
    }

    /// How long before a frame's flip the loop wakes to decide and draw it, on a vblank grid: the
    /// draw and the aim's margin, at most a refresh (a longer draw cannot keep up anyway; woken
    /// by more, the frame would wait in `holdUntilItsFlip`, which gives up after 0.25 s). Off a
    /// grid, none: such a display flips when asked, and a frame asked for earlier goes up earlier.
    var drawLead: MediaTime {
        guard output.flipsOnVblankGrid else { return .zero }
        return MediaTime(seconds: min(drawSeconds + aimMargin, output.refreshInterval.seconds), timescale: 1_000_000_000)
    }

    /// A timed frame's flip against the one it was aimed at (`shown.aim`): a miss raises the margin.
    /// Not for a commit the loop held to its moment (overrides armed): its CommitLead hears it.
    func noteAimed(_ shown: PresentedFrame) {
        guard let aim = shown.aim, output.flipsOnVblankGrid else { return }
        var lead = aimLeadForThisScreen()
        lead.record(aimedAt: aim, flippedAt: shown.flipTime)
        aimLead = lead
    }

    private func aimLeadForThisScreen() -> CommitLead {
        let refresh = output.refreshInterval.seconds
        if let aimLead, aimLead.refreshInterval == refresh { return aimLead }
        let fresh = CommitLead(refreshInterval: refresh, ceiling: refresh / 4)
        aimLead = fresh
        return fresh
    }
}
