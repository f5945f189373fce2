import Glibc
import KioskAudio
import KioskCore
import KioskMedia
import Logging

/// A frame drawn and waiting for the moment its flip is asked for (`CommitLead`); a command
/// that came first is carried out, then it goes up or is dropped.
struct PendingCommit {
    let drawn: DrawnFrame
    let frame: DecodedFrame
    let item: ActiveItem
    /// The commands waiting when its moment came were carried out first (once: a stream of
    /// them must not hold the frame back).
    var commandsWentFirst = false
}

/// While overrides are armed, the loop's frames are flipped at the last moment before their
/// vblank, so that an override asked for meanwhile takes that vblank (#35).
extension PlaybackLoop {
    /// A due frame, drawn now. With overrides armed its flip is asked for at the last moment
    /// before its vblank (`CommitLead`): until then the screen is free for an override, which
    /// takes the first vblank after its request instead of the one after this frame's flip.
    /// The frame stays first in its item's queue while it waits, so a pause that comes first
    /// leaves it there for the resume instead of losing it.
    /// `aim`: the flip the pacer chose it for (the stats line says it).
    func presentAtItsMoment(_ frame: DecodedFrame, of item: ActiveItem, aim: MediaTime) {
        guard !items.armed.wanted.isEmpty, !output.presentDrawsFirst else {
            takeOff(frame, of: item)
            present(frame, of: item, aim: aim)
            return
        }
        let refresh = output.refreshInterval.seconds
        if commitLead?.refreshInterval != refresh {
            // Sporadic misses (a late wake-up now and then) leave the lead where it is: see CommitLead.
            commitLead = CommitLead(refreshInterval: refresh, missesToRise: 3)
            logger.debug("display: overrides armed: the loop's flips are asked for just before their vblank (every \(String(format: "%.2f", refresh * 1000)) ms)")
        }
        switch screen.draw(frame, layout: layout(of: frame, in: item), scaler: item.scaler, overlay: time.overlayView,
                           shown: shown(frame, of: item, aim: aim), predrawn: item.predrawn.take(), timed: true, holdable: true) {
        case .flipped:
            takeOff(frame, of: item)
            presented(frame, of: item)
        case .drawn(let drawn):
            pendingCommit = PendingCommit(drawn: drawn, frame: frame, item: item)
            commitPendingWhenDue()
        case .failed: takeOff(frame, of: item)
        }
    }

    /// `frame` off the head of its item's queue, if it is still there (a seek flushes it).
    func takeOff(_ frame: DecodedFrame, of item: ActiveItem) {
        item.pipeline.frames.popFirst { if case .frame(let head, _) = $0 { head === frame } else { false } }
    }

    /// Asks for the pending frame's flip at its moment; a command that comes first leaves it
    /// pending (the loop carries the command out, then `commitPendingIfStillDue`).
    func commitPendingWhenDue() {
        guard let pending = pendingCommit else { return }
        let moment = MonotonicClock.hostTime(seconds: commitLead?.commitMoment(flip: pending.drawn.flip) ?? pending.drawn.flip)
        // A draw that ran past the moment is asked for at once, as without the wait, and says
        // nothing of the lead: the pacer's estimate of the draw was short, not the lead.
        let waits = MonotonicClock.hostTime() < moment
        let urgent = waits && raiseForTheHeldFlip()
        if waits { mailbox.wait(untilHost: moment) }
        // A command that came first is carried out first: before the moment, then the wait goes
        // on; at or past it (a draw that ran long, a wake-up late), once, then the frame goes
        // up. A request asked for while the frame was drawn would otherwise wait for its flip
        // and a refresh more (#35's benchmark: an armed override 38 ms after its request).
        if mailbox.hasPending {
            let early = MonotonicClock.hostTime() < moment
            if early || !pending.commandsWentFirst {
                if !early { pendingCommit?.commandsWentFirst = true }
                if urgent { RealtimeScheduling.lowerCurrentThread() }
                return
            }
        }
        pendingCommit = nil
        // Held here, however it ends (at its moment, at once after a command): the aim's margin
        // hears only of frames flipped as soon as drawn.
        let committed = screen.commit(pending.drawn, heldByTheLoop: true) { if urgent { RealtimeScheduling.lowerCurrentThread() } }
        takeOff(pending.frame, of: pending.item)
        guard let flip = committed else { return }
        guard waits else { presented(pending.frame, of: pending.item); return }
        let before = commitLead?.seconds ?? 0
        commitLead?.record(aimedAt: pending.drawn.flip, flippedAt: flip)
        if let lead = commitLead, lead.seconds != before {
            logger.debug("display: flips asked for \(String(format: "%.1f", lead.seconds * 1000)) ms before their vblank")
        }
        // Logged when the lead reaches a new height: a few times, however often a box misses.
        if let lead = commitLead, lead.seconds > max(highestLead, lead.floor) {
            highestLead = lead.seconds
            logger.info("display: a frame whose flip was asked for late missed its vblank (\(lead.misses) so far); asked \(String(format: "%.1f", lead.seconds * 1000)) ms ahead now")
        }
        presented(pending.frame, of: pending.item)
    }

    /// The presenter at SCHED_FIFO for a held flip's wait and its request to the display, and
    /// only then (drawing, stats and snapshots stay at the normal policy, beside the decoders). At the normal policy its wake-up came a
    /// few ms late now and then behind the decoders on a busy box: the flip missed its vblank
    /// and the lead grew to 3-5 ms, which an override asked for in that time waits behind
    /// (#35). Refused (not root, no `LimitRTPRIO=`), it waits as before, said once.
    private func raiseForTheHeldFlip() -> Bool {
        guard heldFlipsRealtime != false else { return false }
        // A kiosk started at another policy (chrt, a unit's CPUSchedulingPolicy=) keeps it.
        guard RealtimeScheduling.currentThread().policy == Int32(SCHED_OTHER) else {
            heldFlipsRealtime = false
            logger.debug("display: held flips wait at the policy kiosk was started with")
            return false
        }
        switch RealtimeScheduling.raiseCurrentThread(priority: RealtimeScheduling.heldFlipPriority) {
        case .raised(let priority):
            if heldFlipsRealtime == nil { logger.debug("display: held flips wait at real-time priority \(priority) (SCHED_FIFO)") }
            heldFlipsRealtime = true
            return true
        case .refused(let reason):
            heldFlipsRealtime = false
            logger.info("display: held flips wait at normal scheduling (real-time refused: \(reason)); on a busy box they may miss their vblank. kiosk.service allows it with LimitRTPRIO=")
            return false
        }
    }

    /// After commands: the pending frame goes up if it still belongs there (the same item, not
    /// sought away from, nothing drawn since, not past a paused position), else its drawing is
    /// dropped for what they ask. Still its item's next frame (a pause, a redraw), it stays
    /// first in the queue and the pacer decides again: after a resume it shows, not the next.
    func commitPendingIfStillDue() {
        guard let pending = pendingCommit else { return }
        let stillNext = !stopping && pending.item === current && !sequencer.finished
            && pending.drawn.shown.generation == pending.item.pipeline.currentGeneration
        guard stillNext, screen.isNewest(pending.drawn),
              time.clock.isRunning || pending.frame.pts <= time.clock.mediaTime(atHost: MonotonicClock.hostTime()) else {
            pendingCommit = nil
            screen.drop(pending.drawn)
            if !stillNext { takeOff(pending.frame, of: pending.item) }
            return
        }
        commitPendingWhenDue()
    }
}
