import Foundation
import KioskCore
import KioskMedia

/// Moving through the playlist: opening items, preparing the next one ahead, seams, failures,
/// the idle screen, and the commands that change items.
extension PlaybackLoop {
    func handle(_ command: PlayerCommand) {
        switch command {
        case .request(let request): carryOut(request)
        case .reload(let settings, let entries):
            applyReload(settings, entries: entries)
        case .stop:
            stopping = true
        case .overlay(let note):
            screen.overlay?.note(note)
        case .screenshot(let request):
            // A screen switched off shows nothing; with CEC the TV sleeps but kiosk's black is up.
            request.finish(isDisplayOff && usesKMSPower ? .failure(ScreenshotError(description: "the display is off"))
                                                        : screen.captureScreen())
        }
    }

    /// A user's request: playlist requests go to the navigator (KioskCore's
    /// `PlaylistNavigator.answer`), the others to the state machine.
    func carryOut(_ request: PlayerRequest) {
        guard request.isPlaylistRequest else { return apply(request) }
        switch navigator.answer(request, position: current.map { _ in currentTime }, displayOff: isDisplayOff) {
        case .begin(let step):
            begin(step, seamFrom: nil)
        case .programChanged(let now):
            items.dropUpcoming()   // prepared again, from the program
            if let now {
                finished = false
                begin(now, seamFrom: nil)
            }
        case .loaded(let outcome):
            items.dropUpcoming()
            switch outcome {
            case .keptCurrent(let index): current?.index = index
            case .currentRemoved, .notStarted: begin(navigator.advance(), seamFrom: nil)
            }
            finished = false
            carryOut(.goto(index: 0))   // a loaded list plays from its start
        case .setDisplayPower(let on):
            setDisplayPower(on: on)
        case .refused(let line):
            logger.warning("\(line)")
        case .deferred:
            break
        }
    }

    /// Applies a request to the state machine; a `skip` counts from the position now, not
    /// from when it was posted. Also the engine's own settings at start and on reload.
    func apply(_ request: PlayerRequest) {
        apply(.request(request, position: currentTime))
    }

    /// Acts on the program's answer: its step, and a position to resume the entry at.
    func begin(_ next: PlaylistProgram.Step, seamFrom seam: MediaTime?) {
        begin(next.step, seamFrom: seam, resumingAt: next.resumeAt)
    }

    /// Acts on the cursor's answer. `seamFrom` is the outgoing item's end on the clock when
    /// the switch is a seam (the item played to its end), nil for a user's skip or a failure.
    /// `resumingAt`: an entry an insert interrupted starts where it was (never prepared ahead).
    func begin(_ step: PlaylistStep, seamFrom seam: MediaTime?, resumingAt resume: MediaTime? = nil) {
        switch step {
        case .play(let index):
            navigator.beganEntry()
            let (next, outgoing) = items.makeCurrent(index, entry: navigator.entries[index], mayUsePrepared: resume == nil) {
                open(index)
            }
            noteProgress()   // the stall guard counts afresh for the new item
            idleUntil = nil
            finished = false
            if seam == nil || resume != nil { audio?.flush() }   // a skip cuts the old item's sound at once
            if let resume { next.pipeline.seek(to: next.plan.start + resume) }
            items.updateAudioOrder()
            applyVolume()
            if let seam, resume == nil, let first = next.firstFrame, !needsFirstFrame {
                // The seam: the clock runs on; the outgoing item's end is the incoming one's
                // first picture (which may start a little after 0, behind its sound's priming).
                clock.rebase(from: seam, to: Swift.max(next.plan.start, first.pts))
                apply(.advanced(to: next.reference, duration: next.duration))
                next.hasReportedReady = true
                if let outgoing { items.retire(outgoing) }
            } else {
                // Not ready yet (or a skip): the last picture stays up until the first frame.
                apply(.itemLoading(next.reference))
                needsFirstFrame = true
                outgoing?.close()
            }
        case .finished:
            apply(.endReached)
            finished = true
            items.dropUpcoming()
            onEvent?(.finished)
        case .nothingPlayable(let retryAfter):
            items.closeAll()
            apply(.queueEmpty)
            if settings.exitWhenFinished {
                // A one-shot `kiosk play` (no loop) has nobody to retry for: it ends, and says so.
                logger.error("nothing in the playlist can play")
                finished = true
                onEvent?(.nothingPlayable(retryAfter: retryAfter))
                return
            }
            logger.error("nothing in the playlist can play; trying again in \(String(format: "%.0f", retryAfter.seconds)) s")
            screen.presentFiller(item: -1, dropped: dropped, reason: idleReason(retryAfter: retryAfter), splash: true)
            idleUntil = MonotonicClock.hostTime() + retryAfter
            onEvent?(.nothingPlayable(retryAfter: retryAfter))
        }
    }

    /// Opens `entry` (by default the cursor's at `index`; a prepared item may come from the
    /// list the program switches to at the seam).
    func open(_ index: Int, entry: PlaylistEntry? = nil) -> ActiveItem {
        items.open(entry ?? navigator.entries[index], index: index, settings: settings,
                   rate: state.rate.numerator != 0 ? state.rate : state.defaultRate)
    }

    /// Opens the item that will follow `item` once it is close to its end (or at once for a
    /// short or still item), so its first frame is decoded before the seam.
    func prepareUpcomingIfDue(after item: ActiveItem) {
        if let prepared = upcoming {
            if !prepared.isScalerPrepared, let first = prepared.firstFrame {
                prepared.isScalerPrepared = true
                _ = try? prepared.scaler.prepare(for: first, layout: layout(of: first, in: prepared))
            }
            // Found out ahead of time: skip it now so a good item is prepared instead.
            guard let (failed, error) = items.takeFailedUpcoming() else { return }
            navigator.noteFailedAhead(failed.index)
            report(error, index: failed.index, reference: failed.reference)
            return
        }
        guard !finished, needsFirstFrame == false else { return }
        guard SeamTiming.isTimeToPrepareNext(duration: item.duration, start: item.plan.start,
                                             position: clock.mediaTime(atHost: MonotonicClock.hostTime()),
                                             lead: settings.prepareAhead, isOpen: item.pipeline.info != nil,
                                             isStill: item.plan.stillDuration != nil) else { return }
        let preview = navigator.preview()
        if preview.next.resumeAt == nil, case .play(let index) = preview.next.step, let entry = preview.entry {
            items.prepare(open(index, entry: entry))
        }
    }

    /// The current item has no more frames. Its last frame stays up until the seam; then the
    /// playlist moves on.
    func reachEnd(of item: ActiveItem, length: MediaTime) {
        let seam = seamTime(of: item, length: length)
        // With the next item prepared, hand over now: the clock is renamed, not moved, so its
        // first frame is still paced to the seam like any frame, and the switching work is
        // done while the outgoing picture is still up instead of delaying the incoming one.
        let preview = navigator.preview()
        if preview.next.resumeAt == nil, case .play(let index) = preview.next.step, let prepared = upcoming,
           prepared.index == index, prepared.entry.media == preview.entry?.media, prepared.isPrimed {
            begin(navigator.advance(), seamFrom: seam)
            return
        }
        if !settings.untimed {
            switch SeamTiming.wait(before: seam, clock: clock, now: MonotonicClock.hostTime(), refreshInterval: output.refreshInterval) {
            case .none: break
            case .forClock:
                mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 20))
                return
            case .until(let wake):
                noteAwaitedEnd(dueAt: wake, of: item)
                waitWatched(untilHost: wake)
                return
            }
        }
        begin(navigator.advance(), seamFrom: seam)
    }

    /// Where the outgoing item hands over on the clock (`SeamTiming`).
    func seamTime(of item: ActiveItem, length: MediaTime) -> MediaTime {
        let incoming = upcoming.flatMap { $0.pipeline.info != nil ? $0.expectedFrameDuration : nil }
        return SeamTiming.handOver(length: length, lastPresented: item.lastPresentedPTS, frameDuration: item.expectedFrameDuration,
                                   incomingFrameDuration: incoming,
                                   stillStart: item.plan.stillDuration != nil ? item.plan.start : nil)
    }

    func fail(_ item: ActiveItem, _ error: MediaError) {
        report(error, index: item.index, reference: item.reference)
        if item === current {
            items.closeCurrent()
            needsFirstFrame = true
            begin(navigator.advance(), seamFrom: nil)
        }
    }

    /// One log line per bad item per pass; the cursor skips it until the next pass.
    private func report(_ error: MediaError, index: Int, reference: PlayerItemReference) {
        logger.error("skipping item \(index): \(error)")
        navigator.markFailed(index)
        apply(.itemFailed(reference, reason: error.reason))
        onEvent?(.itemSkipped(index: index, reason: error.reason))
    }
}

extension PlaybackLoop {
    /// The idle screen's line.
    func idleReason(retryAfter: MediaTime) -> String {
        let seconds = Int(retryAfter.seconds.rounded())
        let total = navigator.entries.count
        guard total > 0 else { return "Nothing to play: the playlist is empty; retrying in \(seconds) s" }
        // The cursor answers nothingPlayable only once every entry failed in the pass (and
        // then forgets the pass), so the count is all of them.
        return "No playable item: \(total) of \(total) failed; retrying in \(seconds) s"
    }
}
