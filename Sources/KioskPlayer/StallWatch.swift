import KioskCore
import KioskMedia

/// The stall guard's hold on the presenter (issue 12; the policy is KioskCore's `StallGuard`,
/// pure): a local item that should be playing but shows no new frame, makes no audio
/// progress and whose decoder is not at work (`StallGuard`) for `stall_timeout` is found
/// here, and the sequencer ends it as failed. While progress is overdue in a state that
/// claims to be playing (network items too), the heartbeat says since when, and the service
/// watchdog goes unfed once that lasts.
final class StallWatch {
    private var policy = StallGuard()
    private let heartbeat: PresenterHeartbeat
    /// The item the opening allowance was counted for.
    private weak var watched: ActiveItem?

    init(heartbeat: PresenterHeartbeat) {
        self.heartbeat = heartbeat
    }

    /// Once per turn of the loop: counts while `expectsProgress`, stands down otherwise. The
    /// error to end `item` with when it is a local item that stalled; nil otherwise.
    /// An item still opening is given `StallGuard.openingAllowance` before the count begins.
    func check(_ item: ActiveItem?, expectsProgress: Bool, timeout: MediaTime, position: MediaTime) -> MediaError? {
        let now = MonotonicClock.hostTime()
        policy.timeout = timeout
        if item !== watched {
            policy.watchingAnotherItem()
            watched = item
        }
        let unopened = item.map { $0.pipeline.info == nil } ?? false
        if !unopened { policy.opened() }
        let opening = unopened && policy.opening(at: now)
        if expectsProgress && !opening {
            policy.expectProgress(at: now)
        } else {
            policy.standDown()
        }
        if let item { policy.decoderWorked(steps: item.pipeline.decodeSteps, at: now) }
        guard let item, !item.pipeline.isNetwork, policy.isStalled(at: now), let since = policy.overdueSince else { return nil }
        if unopened, let began = policy.openingSince {
            let seconds = String(format: "%.1f", (now - began).seconds)
            return MediaError(source: item.plan.source,
                              reason: "stalled: not open after \(seconds) s (a device or disk that does not answer?)")
        }
        let at = String(format: "%.1f", position.seconds)
        let seconds = String(format: "%.1f", (now - since).seconds)
        return MediaError(source: item.plan.source,
                          reason: "stalled: no new frame and no sound for \(seconds) s while playing (at \(at) s)")
    }

    /// Tells the heartbeat since when progress is overdue (after `check` and what it led to).
    func reportToHeartbeat() {
        heartbeat.progress(overdueSince: policy.overdueSince?.seconds)
    }

    /// Nothing should play now (the idle screen, the end): the count starts afresh later.
    func standDown() { policy.standDown() }

    /// A new frame is on screen, the sound was heard further, or an item or seek starts afresh.
    func progressed() {
        policy.progressed(at: MonotonicClock.hostTime())
    }

    /// The presenter waits for a frame due at `due`: believed up to a few frame periods
    /// (`FrameTimeline`'s longest step) after the last progress, or a real gap where its
    /// timeline keeps them, in the clock's time at its `rate` (half speed: twice as long).
    func awaitingFrame(dueAt due: MediaTime, of item: ActiveItem, rate: Rational) {
        policy.awaiting(dueAt: due, longestWait: Self.hostTime(item.longestFrameWait, at: rate))
    }

    /// A wait in media time as the host lives it at `rate` (only slower rates lengthen it).
    private static func hostTime(_ wait: MediaTime, at rate: Rational) -> MediaTime {
        rate.isKnownAndPositive && rate.doubleValue < 1 ? wait * rate.inverted : wait
    }

    /// The presenter waits for an item's end: believed a few frames after the last progress,
    /// or the last frame's own time where the file holds it (a GIF's 8 s logo: counted from
    /// the last frame, it was taken for a stall 5 s in), in the clock's time at its `rate`; or
    /// whole for a still image (the length kiosk.conf set) and for a picture held while the
    /// sound plays to its end (a song's cover: a stall counted from the last frame would end
    /// the song 5 s in; the sound's reports keep the count fed meanwhile).
    func awaitingEnd(dueAt due: MediaTime, of item: ActiveItem, rate: Rational) {
        let believed = item.plan.stillDuration != nil || item.pipeline.holdsPictureForSound(shown: item.lastPresentedPTS)
        let cadence = item.expectedFrameDuration
        let wait = Swift.max(cadence * Rational(4, 1), item.lastPresentedOwnDuration ?? .zero) + cadence
        policy.awaiting(dueAt: due, longestWait: believed ? nil : Self.hostTime(wait, at: rate))
    }

    /// `until`, or earlier where the guard must look again.
    func wake(for until: MediaTime) -> MediaTime {
        guard let since = policy.overdueSince, since + policy.timeout < until else { return until }
        return since + policy.timeout
    }
}
