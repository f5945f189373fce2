import KioskCore
import KioskMedia
import Logging

/// Fades and crossfades at seams (issue 22), beside the playback loop rather than in it: the
/// sequencer commits a transition once the next item's first frame is decoded (else the seam
/// cuts as before) and tells this at the seam; the presenter asks it for each flip's look
/// (`TransitionSchedule`) and mixes the picture with it; the sound feeder fades each item's
/// samples by the envelope set here on its pipeline. Lives on the presenter thread.
final class SeamTransitions {
    /// Where the current item is at a host time (media time from its trimmed start); nil while
    /// nothing plays. The loop wires it to its clock.
    var position: (MediaTime) -> MediaTime? = { _ in nil }
    /// The transitions touching the item on screen.
    private(set) var schedule = TransitionSchedule()
    /// The outgoing item's last picture, during a crossfade.
    private(set) var held: CapturedPicture?
    /// A transition decided for the prepared item (its serial), not yet begun.
    private var committed: (serial: UInt64, transition: Transition)?
    /// The last flip showed a transition's look: one more puts the plain picture up.
    private var showingLook = false
    private let logger: Logger
    /// The playlist has a fade or crossfade (set when an item with one is opened, for good):
    /// frames handed on without a copy are copied down as well, for the mixes (`ZeroCopyPath`).
    private(set) var mixesPictures = false

    /// An item opened to follow with a fade or crossfade: its frames, and the outgoing item's
    /// from now, are copied down on their decode threads, before the mix reads them.
    func expectsMixes() { mixesPictures = true }
    /// A transition was cut (a late first frame, an unknown end): said once at notice.
    private var toldOfCut = false

    /// How far ahead of its fade the sound is decided: the feeder queues up to a quarter of a
    /// second, the device holds about as much; the rest is margin for a slow machine.
    static let soundLead = MediaTime(value: 1, timescale: 1)

    init(logger: Logger) { self.logger = logger }

    /// What a flip at `host` shows.
    func look(atHost host: MediaTime) -> TransitionLook {
        guard let position = position(host) else { return .plain }
        return schedule.look(at: position, entryAt: entryReached(position))
    }

    /// Where the entry stands when the clock is at `position`: never behind the furthest it
    /// was drawn for, since an item's clock restarts at the frame it waited for after a stall,
    /// and a slow box that ran dry just after a crossfade drew it again with no picture held
    /// under it (CI on the vkms bed: mix 250, plain, then 209). Nil once the entry is over: it is
    /// dropped for good. An exit fade follows the clock as it is (a seek back leaves the fade).
    private func entryReached(_ position: MediaTime) -> MediaTime? {
        guard let reached = entryPeek(position) else { return nil }
        if schedule.entryIsOver(at: reached) {
            schedule.entry = nil
            furthest = nil
            return nil
        }
        furthest = reached
        return reached
    }
    private var furthest: MediaTime?

    /// `entryReached` without moving it (a question about a flip that may not happen).
    private func entryPeek(_ position: MediaTime) -> MediaTime? {
        schedule.entry == nil ? nil : Swift.max(position, furthest ?? position)
    }

    /// Whether a flip at `host` is drawn by the transition's path: a look shows, or the plain
    /// picture is still to go up after one.
    func shows(atHost host: MediaTime) -> Bool {
        showingLook || !look(atHost: host).isPlain
    }

    /// Whether the screen should flip at every refresh around `host`: the look changes from
    /// the one last shown (not while paused: the clock stands, the look with it).
    func isMoving(atHost host: MediaTime) -> Bool {
        guard let position = position(host) else { return showingLook }
        guard showingLook || schedule.isMoving(at: position, entryAt: entryPeek(position)) else { return false }
        let soon = self.position(host + MediaTime(value: 1, timescale: 20)) ?? position
        return schedule.look(at: position, entryAt: entryPeek(position)) != lastShown
            || schedule.look(at: soon, entryAt: entryPeek(soon)) != lastShown
    }

    /// While a fade-out is committed, the loop looks again every 50 ms (a still's wait until
    /// its seam would otherwise sleep through the fade's start); nil otherwise.
    func nextWake(afterHost now: MediaTime) -> MediaTime? {
        schedule.exit != nil ? now + MediaTime(value: 1, timescale: 20) : nil
    }

    /// A flip showed `look`.
    func shown(_ look: TransitionLook) {
        showingLook = !look.isPlain
        lastShown = look
    }
    private var lastShown = TransitionLook.plain

    /// Whether the prepared `upcoming` has its transition decided (committed or refused).
    func hasDecided(for upcoming: ActiveItem) -> Bool { decidedSerial == upcoming.reference.serial }
    private var decidedSerial: UInt64?

    /// Decides the transition from `current` into the prepared, primed `upcoming`: committed
    /// when it is no cut, not a self-repeat and there is time for the sound to follow
    /// (`TransitionSchedule.mayCommit`); the fade-out and the incoming sound's rise are set now.
    func decide(_ transition: Transition, from current: ActiveItem, into upcoming: ActiveItem) {
        decidedSerial = upcoming.reference.serial
        guard transition.kind != .cut else { return }
        // A clip looping itself keeps its seamless cut: a fade would blink every pass.
        guard upcoming.entry.media != current.entry.media else { return }
        mixesPictures = true
        let end = current.duration
        guard let now = position(MonotonicClock.hostTime()), let end,
              TransitionSchedule.mayCommit(transition, position: now, end: end, lead: Self.soundLead) else {
            // Once at notice: an integrator who configured a crossfade and sees cuts learns why
            // (a box too slow to open the next item in time); each seam after that at debug.
            let needed = TransitionSchedule.openingLead(for: transition, base: .zero, lead: Self.soundLead)
            let left = end.flatMap { end in position(MonotonicClock.hostTime()).map { (end - $0).seconds } }
            let line = "transition: \(transition) into item \(upcoming.index) cut instead: " + (left.map {
                String(format: "its first frame was ready %.2f s before the outgoing item's end, %g s needed "
                       + "(a box too slow to open it in time, or an item shorter than that)", $0, needed.seconds)
            } ?? (end == nil ? "the outgoing item's end is unknown" : "nothing is playing"))
            logger.log(level: toldOfCut ? .debug : .notice, "\(line)")
            toldOfCut = true
            return
        }
        committed = (upcoming.reference.serial, transition)
        var incoming = SoundEnvelope()
        switch transition.kind {
        case .fade:
            let half = transition.duration * Rational(1, 2)
            schedule.exit = .init(duration: transition.duration, end: end)
            var outgoing = current.pipeline.soundEnvelope
            outgoing.fadeOut = .init(start: current.plan.start + end, length: half)
            current.pipeline.soundEnvelope = outgoing
            incoming.fadeIn = .init(start: upcoming.plan.start, length: half)
        case .crossfade:
            incoming.fadeIn = .init(start: upcoming.plan.start, length: transition.duration)
        case .cut:
            return
        }
        upcoming.pipeline.soundEnvelope = incoming
    }

    /// The prepared item a transition was committed for no longer follows (a skip, a reload):
    /// `current` plays to its end at full picture and sound.
    func withdraw(from current: ActiveItem?, unlessFollowedBy upcoming: ActiveItem?) {
        guard let committed, committed.serial != upcoming?.reference.serial else { return }
        self.committed = nil
        decidedSerial = nil
        schedule.exit = nil
        if let current {
            var envelope = current.pipeline.soundEnvelope
            envelope.fadeOut = nil
            current.pipeline.soundEnvelope = envelope
        }
    }

    /// `next` is on screen from now: with the transition committed for it, when it played in at
    /// a seam; else plainly. `holdPicture` draws the outgoing picture a crossfade mixes under.
    func enter(_ next: ActiveItem, atSeam: Bool, holdPicture: () -> CapturedPicture?) {
        defer { committed = nil; decidedSerial = nil }
        furthest = nil   // positions are the entering item's from now
        guard atSeam, let committed, committed.serial == next.reference.serial else {
            schedule = TransitionSchedule()
            held = nil
            return
        }
        schedule = TransitionSchedule(entry: committed.transition)
        held = committed.transition.kind == .crossfade ? holdPicture() : nil
        if committed.transition.kind == .crossfade, held == nil {
            schedule = TransitionSchedule()   // nothing to cross from (nothing drawn yet): a cut
        }
    }

    /// The entry's transition is over: the held picture goes.
    func releaseIfOver(atHost host: MediaTime) {
        guard held != nil, !showingLook, let position = position(host),
              !schedule.isMoving(at: position, entryAt: entryPeek(position)) else { return }
        held = nil
    }
}
