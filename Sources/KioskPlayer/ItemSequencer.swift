import KioskCore
import KioskMedia
import Logging

/// Moves through the playlist (mpv's loadfile.c beside the loop's playloop.c): opens items,
/// prepares the next one ahead, hands over at seams, skips failures, shows the idle screen;
/// the requests that change items, display power and reloads (ItemSequencer+Requests.swift).
/// What plays next is decided by KioskCore's `PlaylistNavigator`; this acts on its answers.
/// Lives on the presenter thread with the loop, which paces frames and asks it at each end.
final class ItemSequencer {
    /// What the engine plays by; a live reload replaces it whole.
    var settings: PlayerSettings
    /// What plays next: the cursor, a switch waiting for the seam, an insert playing, failures
    /// found ahead.
    var navigator: PlaylistNavigator
    /// The playlist ran out (`loop: none`): nothing plays until a request.
    var finished = false
    /// Nothing playable: the next pass starts at this host time.
    var idleUntil: MediaTime?
    /// The layers the latest override asked for keeps up while its entries play.
    var overrideLayers: Set<String> = []
    /// The default rate a live item set to 1 (`playAtRateOne`), given back when a file follows
    /// (kiosk.conf's `playback.rate` or a `rate` said before it).
    var rateBeforeLive: Rational?
    let items: PlayingItems
    let time: PlaybackTimekeeper
    let screen: FramePresenter
    let stall: StallWatch
    let power: DisplayPowerSwitch
    /// The shared timeline, when `sync: epoch:` is set (ItemSequencer+Timeline.swift).
    let follower: TimelineFollower
    let audio: AudioPath?
    let logger: Logger
    let onEvent: (@Sendable (PlayerEvent) -> Void)?
    /// After each change the player's snapshot shows (the loop publishes it).
    var changed: () -> Void = {}

    init(cursor: PlaylistCursor, settings: PlayerSettings, items: PlayingItems, time: PlaybackTimekeeper,
         screen: FramePresenter, stall: StallWatch, audio: AudioPath?, logger: Logger,
         onEvent: (@Sendable (PlayerEvent) -> Void)?) {
        navigator = PlaylistNavigator(cursor: cursor)
        self.settings = settings
        self.items = items
        self.time = time
        self.screen = screen
        self.stall = stall
        power = DisplayPowerSwitch(screen: screen, logger: logger)
        follower = TimelineFollower(logger: logger)
        self.audio = audio
        self.logger = logger
        self.onEvent = onEvent
    }

    var current: ActiveItem? { items.current }
    var upcoming: ActiveItem? { items.upcoming }

    /// The first item, at start: the timeline's on a synchronised player, else the playlist's
    /// first, or `point`'s entry opened at its place (a position past the item's end is clamped
    /// by the seek, like any seek).
    func start(at point: PlaylistStartPoint? = nil) {
        if startOnTheTimeline() { return }
        if let point, navigator.entries.indices.contains(point.index),
           case .begin(let step) = navigator.answer(.goto(index: point.index), position: nil, displayOff: false) {
            return begin(step.step, seamFrom: nil, resumingAt: point.position.flatMap { $0 > .zero ? $0 : nil })
        }
        begin(navigator.advance(), seamFrom: nil)
    }

    /// The file's time an entry resumed at `position` (counted from its `start`) opens at:
    /// never past its trim's `end`.
    static func opening(at position: MediaTime, of plan: ItemPlan) -> MediaTime {
        let wanted = plan.start + position
        guard let end = plan.end else { return wanted }
        return Swift.min(wanted, end)
    }

    /// Acts on the program's answer: its step, and a position to resume the entry at.
    func begin(_ next: PlaylistProgram.Step, seamFrom seam: MediaTime?) {
        begin(next.step, seamFrom: seam, resumingAt: next.resumeAt)
    }

    /// Acts on the cursor's answer. `seamFrom` is the outgoing item's end on the clock when
    /// the switch is a seam (the item played to its end), nil for a user's skip or a failure.
    /// `resumingAt`: an entry an insert interrupted starts where it was (never prepared ahead).
    func begin(_ step: PlaylistStep, seamFrom seam: MediaTime?, resumingAt resume: MediaTime? = nil) {
        // An override's step hides the layers it does not keep; the loop's (or its idle
        // screen) brings them back.
        screen.keepLayersDuringOverride(navigator.program.playingOverride != nil ? overrideLayers : nil)
        switch step {
        case .play(let index):
            navigator.beganEntry()
            if resume == nil { takeArmedOverride(at: index) }
            let (next, outgoing) = items.makeCurrent(index, entry: navigator.entries[index], mayUsePrepared: resume == nil) {
                open(index)
            }
            next.reference.isInsert = navigator.program.isPlayingInsert
            next.reference.playedAs = navigator.program.playedAs(entryAt: index)
            stall.progressed()   // the stall guard counts afresh for the new item
            idleUntil = nil
            finished = false
            // Where it opens: within a trim's `end`, whose reading stops at the first packet
            // past it (a `goto 2 90` into an entry cut at 60 s had no frame and failed); at
            // `end` it shows the last frame before it, as a seek to the duration does.
            let opensAt = resume.map { ItemSequencer.opening(at: $0, of: next.plan) }
            if let opensAt { next.pipeline.seek(to: opensAt) }
            if seam == nil || resume != nil {
                audio?.flush(thenPlay: items.audioOrder)   // a skip cuts the old item's sound at once
            } else {
                items.updateAudioOrder()
            }
            time.applyVolume()
            time.setLiveRateFactor(.one)   // a live item's pace is its own
            if let seam, resume == nil, let first = next.firstFrame, !time.needsFirstFrame {
                // The seam: the clock runs on; the outgoing item's end is the incoming one's
                // first picture (which may start a little after 0, behind its sound's priming).
                // It ended at its own time, said with its own index before the clock turns to
                // the next item's; the clock stops and starts again as at any end, but playing
                // goes on playing for the watchers, as AVQueuePlayer's (a dashboard fed by the
                // events showed "waiting, no item to play" at every seam).
                time.seam(ending: outgoing, advancingTo: .advanced(to: next.reference, duration: next.duration)) {
                    time.clock.rebase(from: seam, to: Swift.max(next.plan.start, first.pts))
                }
                next.hasReportedReady = true
                // A transition committed for it begins (the outgoing item's scaler is still open).
                screen.enter(next, atSeam: true, outgoing: outgoing)
                if let outgoing { items.retire(outgoing) }
            } else {
                screen.enter(next, atSeam: false, outgoing: nil)
                // Not ready yet (or a skip): the last picture stays up until the first frame.
                // An item that played to its end (a seam the next item was not prepared for,
                // an insert giving the loop back) ended: its observers hear so before the next.
                if seam != nil { time.apply(.endReached, ended: time.whereItEnded(outgoing)) }
                // Until its first frame, the item's time is where it begins (its resume point),
                // not the time the clock had in the item before: `get time` read an override's
                // 0.93 s for the loop item coming back at 2.0 s. Before the state's change, which
                // publishes the snapshot `get` reads and the events' times.
                time.clock.seek(to: opensAt ?? next.plan.start, atHost: MonotonicClock.hostTime())
                time.apply(.itemLoading(next.reference))
                time.needsFirstFrame = true
                outgoing?.close()
            }
        case .finished:
            time.apply(.endReached)
            finished = true
            items.dropUpcoming()
            onEvent?(.finished)
        case .nothingPlayable(let retryAfter):
            items.closeAll()
            time.apply(.queueEmpty)
            if settings.exitWhenFinished {
                // A one-shot `kiosk play` (no loop) has nobody to retry for: it ends, and says so.
                logger.error("nothing in the playlist can play")
                finished = true
                onEvent?(.nothingPlayable(retryAfter: retryAfter))
                return
            }
            logger.error("nothing in the playlist can play; trying again in \(String(format: "%.0f", retryAfter.seconds)) s")
            screen.presentFiller(item: -1, reason: navigator.idleReason(retryAfter: retryAfter), splash: true)
            idleUntil = MonotonicClock.hostTime() + retryAfter
            onEvent?(.nothingPlayable(retryAfter: retryAfter))
        }
    }

    /// Opens `entry` (by default the cursor's at `index`; a prepared item may come from the
    /// list the program switches to at the seam).
    private func open(_ index: Int, entry: PlaylistEntry? = nil, decoderAfter: DecoderHandOff? = nil) -> ActiveItem {
        let opened = entry ?? navigator.entries[index]
        // A fade or crossfade into it (not a clip following itself, which cuts): zero copy's
        // frames are copied for the mix from now.
        if (opened.item.transition ?? settings.playback.transition).kind != .cut, opened.media != items.current?.entry.media {
            screen.expectTransitions()
        }
        return items.open(opened, index: index, settings: settings, rate: openingRate, decoderAfter: decoderAfter)
    }

    /// Opens the item that will follow `item` once it is close to its end (or at once for a
    /// short or still item), so its first frame is decoded before the seam.
    func prepareUpcomingIfDue(after item: ActiveItem) {
        screen.transitions.withdraw(from: item, unlessFollowedBy: upcoming)
        if let prepared = upcoming {
            if !prepared.isScalerPrepared, let first = prepared.firstFrame {
                prepared.isScalerPrepared = true
                _ = try? prepared.scaler.prepare(for: first, layout: screen.layout(of: first, in: prepared,
                                                                                   gravity: settings.playback.gravity,
                                                                                   region: settings.playback.region))
            }
            // Its first frame is decoded: the seam's transition is decided now (else it cuts).
            if prepared.isPrimed, !screen.transitions.hasDecided(for: prepared) {
                screen.transitions.decide(prepared.entry.item.transition ?? settings.playback.transition,
                                          from: item, into: prepared)
            }
            // Found out ahead of time: skip it now so a good item is prepared instead.
            guard let (failed, error) = items.takeFailedUpcoming() else { return }
            if let turn = navigator.previewPlayedAs(entryAt: failed.index) {
                (failed.reference.playedAs, failed.reference.isInsert) = turn
            }
            navigator.noteFailedAhead(failed.index)
            report(error, index: failed.index, reference: failed.reference)
            return
        }
        guard !finished, !time.needsFirstFrame else { return }
        let position = time.clock.mediaTime(atHost: MonotonicClock.hostTime())
        func isDue(lead: MediaTime) -> Bool {
            SeamTiming.isTimeToPrepareNext(duration: item.duration, start: item.plan.start, position: position, lead: lead,
                                           isOpen: item.pipeline.info != nil, isStill: item.plan.stillDuration != nil)
        }
        // A transition into the next item is decided a while before the end: it opens earlier.
        guard isDue(lead: longestOpeningLead + Self.queueDeepeningLead), let (index, entry) = entryToPrepare() else { return }
        // A clip following itself keeps its cut (`SeamTransitions.decide`): no earlier opening.
        let transition = entry.media == item.entry.media ? .cut : entry.item.transition ?? settings.playback.transition
        let lead = TransitionSchedule.openingLead(for: transition, base: settings.prepareAhead, lead: SeamTransitions.soundLead)
        if isDue(lead: lead + Self.queueDeepeningLead) { queueMoreAhead(of: item) }
        guard isDue(lead: lead) else { return }
        let handOff = decoderHandOff(from: item, into: entry)
        items.prepare(open(index, entry: entry, decoderAfter: handOff))
        if let handOff { item.pipeline.handOverDecoderAtEnd(handOff) }
    }

    /// A cut from a video file above 1080p into another: the next item's decoder, if it is
    /// large too, waits for this one's to be freed (`DecoderHandOff`). Not for a transition
    /// (both decoders run through it), a still (its decoder is small, its picture at once) or
    /// a network source (a live one opened and left unread overflows; one playing may not end).
    private func decoderHandOff(from item: ActiveItem, into entry: PlaylistEntry) -> DecoderHandOff? {
        guard item.plan.stillDuration == nil, !entry.isStillImage, !item.pipeline.isNetwork,
              !NetworkURL.isNetwork(entry.media.description),
              (entry.item.transition ?? settings.playback.transition).kind == .cut,
              let video = item.pipeline.info?.bestVideo, DecoderHandOff.isLarge(width: video.width, height: video.height)
        else { return nil }
        return DecoderHandOff()
    }

    /// The entry opened ahead of the current item's seam, if one is: the next step plays an
    /// entry from its start (one resumed mid-way is opened at its turn).
    private func entryToPrepare() -> (index: Int, entry: PlaylistEntry)? {
        let preview = navigator.preview()
        guard preview.next.resumeAt == nil, case .play(let index) = preview.next.step, let entry = preview.entry else { return nil }
        return (index, entry)
    }

    /// The earliest any item is opened before the seam: with the longest fade.
    private var longestOpeningLead: MediaTime {
        TransitionSchedule.openingLead(for: Transition(kind: .fade, duration: Transition.longest),
                                       base: settings.prepareAhead, lead: SeamTransitions.soundLead)
    }

    /// How long before the next item is opened the playing one starts queueing more frames.
    static let queueDeepeningLead = MediaTime(value: 1, timescale: 1)

    /// Opening the next item decodes its first frames beside the playing one's: at 4K on 2
    /// cores that starved the playing item for a few hundred milliseconds, and its flips came
    /// 50-110 ms apart at every such moment (27 in a 60 s two-item loop, none at the seams).
    /// So a second before, the playing item queues up to twice as many frames ahead (the byte
    /// budget still bounds them), which cover that moment; not untimed (nothing to cover), nor
    /// when no item follows.
    private func queueMoreAhead(of item: ActiveItem) {
        guard !settings.untimed, item.pipeline.frames.capacity < ItemPipeline.framesAheadBeforePrepare else { return }
        item.pipeline.frames.setCapacity(ItemPipeline.framesAheadBeforePrepare)
    }

    /// The current item has no more frames. Its last frame stays up until the seam; then the
    /// playlist moves on. What the loop waits for first, if anything.
    func reachEnd(of item: ActiveItem, length: MediaTime) -> SeamTiming.Wait {
        let seam = seamTime(of: item, length: length)
        // With the next item prepared, hand over now: the clock is renamed, not moved, so its
        // first frame is still paced to the seam like any frame, and the switching work is
        // done while the outgoing picture is still up instead of delaying the incoming one.
        // A still's end comes right after its one frame, its seam only after its duration: until
        // then it stays current (the loop may refresh it for a transition or a ticker), so the
        // next item's sound and clock do not start early. So does a video's last frame while
        // its sound plays on to the seam (`SeamTiming`'s sound end, whether a tail of 0.3 s or
        // a song under its cover): handed over early, the sound was cut where the next item
        // was primed.
        let heldForSound = item.lastPresentedPTS.map { seam > $0 + item.expectedFrameDuration } ?? false
        if item.plan.stillDuration != nil || heldForSound, !settings.untimed {
            let wait = SeamTiming.wait(before: seam, clock: time.clock, now: MonotonicClock.hostTime(),
                                       refreshInterval: screen.output.refreshInterval)
            if wait != .none { return wait }
        }
        let preview = navigator.preview()
        if preview.next.resumeAt == nil, case .play(let index) = preview.next.step, let prepared = upcoming,
           prepared.index == index, prepared.entry.media == preview.entry?.media, prepared.isPrimed {
            begin(navigator.advance(), seamFrom: seam)
            return .none
        }
        if !settings.untimed {
            let wait = SeamTiming.wait(before: seam, clock: time.clock, now: MonotonicClock.hostTime(),
                                       refreshInterval: screen.output.refreshInterval)
            if wait != .none { return wait }
        }
        begin(navigator.advance(), seamFrom: seam)
        return .none
    }

    /// Where the outgoing item hands over on the clock (`SeamTiming`).
    private func seamTime(of item: ActiveItem, length: MediaTime) -> MediaTime {
        let incoming = upcoming.flatMap { $0.pipeline.info != nil ? $0.expectedFrameDuration : nil }
        let tuning = item.pipeline.videoTimelineTuning
        return SeamTiming.handOver(length: length, lastPresented: item.lastPresentedPTS, frameDuration: item.expectedFrameDuration,
                                   incomingFrameDuration: incoming,
                                   // An animation looped for its `duration` ends there, its last frame
                                   // held once its file's plays are done, as a still's.
                                   stillStart: item.plan.stillDuration != nil || item.plan.animationLoop != nil ? item.plan.start : nil,
                                   soundEnd: audio != nil ? item.pipeline.demuxedSoundEnd : nil,
                                   pictureEnd: item.lastPresentedPTS.flatMap { last in item.lastPresentedOwnDuration.map { last + $0 } },
                                   longestHold: Swift.max(tuning.longestGap, item.expectedFrameDuration * Rational(tuning.cadenceFactor, 1)))
    }

    func fail(_ item: ActiveItem, _ error: MediaError) {
        report(error, index: item.index, reference: item.reference)
        if item === current {
            items.closeCurrent()
            time.needsFirstFrame = true
            begin(navigator.advance(), seamFrom: nil)
        }
    }

    /// One log line per bad item per pass; the cursor skips it until the next pass.
    private func report(_ error: MediaError, index: Int, reference: PlayerItemReference) {
        logger.error("skipping item \(index): \(error)")
        navigator.markFailed(index)
        time.apply(.itemFailed(reference, reason: error.reason))
        onEvent?(.itemSkipped(index: index, reason: error.reason))
    }
}
