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
}
