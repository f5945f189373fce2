import Foundation
import KioskCore
import KioskMedia
import Logging

/// The presenter thread (DESIGN.md): takes decoded frames when the clock says they are due,
/// has them scaled straight into the display's back buffer and flipped, and asks the
/// sequencer to move on when an item ends. The parts it drives (mpv's split of player core,
/// playloop and loadfile): `PlaybackTimekeeper` (state machine and clock), `ItemSequencer`
/// (the playlist and its seams), `FramePresenter` (the screen), `StallWatch`. They alone own
/// the player's state; other threads talk to them through the mailbox.
final class PlaybackLoop {
    var publish: ((PlayerSnapshot) -> Void)?
    /// Puts frames and filler up, with the overlay; tells the stats file and the snapshots.
    let screen: FramePresenter
    var output: VideoOutput { screen.output }
    let time: PlaybackTimekeeper
    let sequencer: ItemSequencer
    let stall: StallWatch
    let items: PlayingItems
    let audio: AudioPath?
    let mailbox: CommandMailbox
    let logger: Logger
    var stopping = false
    private let onEvent: (@Sendable (PlayerEvent) -> Void)?
    /// When the screen was last refreshed for an animation alone (host time).
    private var lastAnimationRefresh: MediaTime?
    /// When `keepTurns` last published the snapshot.
    private var lastHeldSnapshot: MediaTime?
    /// Flips asked for at the last moment (`PlaybackLoop+CommitLate.swift`).
    var commitLead: CommitLead?
    var pendingCommit: PendingCommit?
    var highestLead = 0.0
    /// Whether a held flip's wait may run at real-time priority: nil until first tried.
    var heldFlipsRealtime: Bool?

    init(output: VideoOutput, cursor: PlaylistCursor, settings: PlayerSettings, stats: StatsWriter?, audio: AudioPath?,
         mailbox: CommandMailbox, logger: Logger, onEvent: (@Sendable (PlayerEvent) -> Void)?) {
        self.mailbox = mailbox
        self.logger = logger
        self.audio = audio
        self.onEvent = onEvent
        items = PlayingItems(audio: audio, screen: output.size,
                             viewer: OverlayLayout.viewerSize(buffer: output.size, rotation: output.softwareRotation), logger: logger)
        let snapshots = settings.snapshotDirectory.map {
            SnapshotSaver(directory: $0, interval: settings.snapshotInterval, logger: logger)
        }
        screen = FramePresenter(output: output, overlay: settings.overlay, layers: settings.layers, splash: settings.display.splash,
                                observers: [stats as PresentedFrameObserver?, snapshots].compactMap { $0 },
                                heartbeat: mailbox.heartbeat, logger: logger)
        items.primeHandOn = screen.primeHandOn
        stall = StallWatch(heartbeat: mailbox.heartbeat)
        time = PlaybackTimekeeper(items: items, audio: audio, stall: stall, logger: logger, onEvent: onEvent)
        sequencer = ItemSequencer(cursor: cursor, settings: settings, items: items, time: time, screen: screen,
                                  stall: stall, audio: audio, logger: logger, onEvent: onEvent)
        // The parts live as long as the loop that owns them, on its thread.
        time.changed = { [unowned self] in publishSnapshot() }
        // A transition's look follows the item's position on the clock; while the clock waits
        // for a first frame (a resume, a rebuffer) it is not yet anchored: the last frame's.
        screen.transitions.position = { [unowned self] host in
            guard let item = current else { return nil }
            if time.needsFirstFrame { return (item.lastPresentedPTS ?? item.plan.start) - item.plan.start }
            return time.clock.mediaTime(atHost: host) - item.plan.start
        }
        sequencer.changed = { [unowned self] in publishSnapshot() }
    }

    var settings: PlayerSettings { sequencer.settings }
    var current: ActiveItem? { items.current }

    func run(startingAt point: PlaylistStartPoint? = nil) {
        // The sound waits for the first picture: the clock starts there, not when decoding does
        // (PlaybackTimekeeper.holdSound takes it from here: a music bed begins as the item opens).
        audio?.writer.pause()
        time.apply(.setVolume(settings.audio.volume))
        time.apply(.setMuted(settings.audio.muted))
        time.apply(.setDefaultRate(settings.playback.defaultRate))
        if !settings.playback.startPaused { time.apply(.play) }
        // Up until the first frame replaces it (no console text in between).
        if screen.hasSplash { screen.presentFiller(item: -1, splash: true) }
        mailbox.serve(true)
        defer {
            mailbox.serve(false)
            // Every line of the run is in the stats file once playback has ended.
            screen.observers.forEach { ($0 as? StatsWriter)?.finish() }
        }
        sequencer.start(at: point)
        while !stopping {
            let commands = mailbox.takeAll()
            for command in commands { handle(command) }
            if stopping { break }
            if let waiting = pendingCommit?.item {
                commitPendingIfStillDue()
                if pendingCommit != nil { continue }
                // The step's own work, which waited for the frame (a stream of commands must
                // not starve it: the next item's preparing, the arming, the stall watch).
                if waiting === current, !sequencer.finished { finishStep(waiting) }
                continue
            }
            // A command that changed what is drawn over the picture (a layer hidden, a text
            // changed) shows at once on a still, not when the still's wait ends.
            if !commands.isEmpty, current != nil, !sequencer.finished { refreshOverlayIfStale() }
            if current == nil || sequencer.finished { sequencer.watchForStall() }   // stands down: nothing should be playing
            if let until = sequencer.idleUntil {
                if MonotonicClock.hostTime() < until { mailbox.wait(untilHost: until); continue }
                sequencer.idleUntil = nil
                sequencer.start()
                continue
            }
            guard let item = current, !sequencer.finished else {
                if sequencer.finished && settings.exitWhenFinished { break }
                mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 4))
                continue
            }
            sequencer.followMasterClock(item)
            step(item)
            // A drawn frame waits for its moment: the work below (arming an override draws its
            // first frame) waits until it is up.
            if pendingCommit != nil { continue }
            finishStep(item)
        }
        // A frame drawn when the stop came goes up: the display takes its buffer back.
        if let pending = pendingCommit, screen.isNewest(pending.drawn) { _ = screen.commit(pending.drawn) }
        pendingCommit = nil
        if let lead = commitLead, lead.misses > 0 {
            logger.info("display: \(lead.misses) frames whose flip was asked for late missed their vblank in all")
        }
        audio?.stop()
        screen.stop()
        items.closeAll()
        publishSnapshot()
    }

    /// What follows a step of `item`.
    private func finishStep(_ item: ActiveItem) {
        sequencer.watchForStall()
        refreshOverlayIfStale()
        // After the step, not before: opening the next item right at a seam would delay
        // the incoming item's first frame.
        if item === current, item.lastPresentedPTS != nil {
            sequencer.prepareUpcomingIfDue(after: item)
            sequencer.armOverridesIfDue()
        }
    }

    private func handle(_ command: PlayerCommand) {
        switch command {
        case .request(let request, let answer):
            let refusal = sequencer.carryOut(request)
            answer?.finish(refusal)
        case .reload(let settings, let entries): sequencer.applyReload(settings, entries: entries)
        case .armOverrides(let list): items.armed.want(list)
        case .stop: stopping = true
        case .overlay(let note): screen.overlay?.note(note)
        case .screenshot(let request, let composed): takeScreenshot(for: request, composed: composed)
        }
    }

    /// One look at the head of the current item's frame queue, and what it calls for.
    private func step(_ item: ActiveItem) {
        reportSourceChanges(item)
        guard let head = item.pipeline.frames.peek(timeout: 0.01) else {
            let held = item.pipeline.holdsPictureForSound(shown: item.lastPresentedPTS)
            noteStarvation(item, pictureHeld: held)
            // A held picture's item plays on with no frame to carry the loop's turns (a song's
            // cover until the file's end is read, seconds before the sound's).
            if held { keepTurns(of: item, until: nil) }
            return
        }
        let generation = item.pipeline.currentGeneration
        switch head {
        case .failed(let error):
            sequencer.fail(item, error)
        case .end(let length, let frameGeneration):
            guard frameGeneration == generation else { _ = item.pipeline.frames.pop(timeout: 0); return }
            switch sequencer.reachEnd(of: item, length: length) {
            case .none: break
            case .forClock: mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 20))
            case .until(let wake):
                stall.awaitingEnd(dueAt: wake, of: item, rate: time.state.rate)
                let until = stall.wake(for: wake)
                // The last frame of a video holds a frame's time, or until its sound ends
                // (`SeamTiming`), which can be a song's length: the loop keeps its turns.
                if item.plan.stillDuration == nil { return keepTurns(of: item, until: until) }
                if refreshAnimation(item, orWaitUntil: until) { return }
                // A still shows one frame for its whole duration: a layer's clock turning or a
                // fade beginning meanwhile wakes the loop to draw it again.
                mailbox.wait(untilHost: screen.nextChange(afterHost: MonotonicClock.hostTime()).map { min($0, until) } ?? until)
            }
        case .frame(let frame, let frameGeneration):
            guard frameGeneration == generation else { _ = item.pipeline.frames.pop(timeout: 0); return }
            frame.applyShift(item.videoShift)
            // Untimed (tests, benchmarks) shows each frame as it comes while playing; paused, it
            // holds like a timed player (the frame pacer waits for the stopped clock).
            if time.needsFirstFrame || (settings.untimed && time.clock.isRunning) {
                guard item.hasRefilled(for: frame, logger: logger) else {   // a stalled stream refills first
                    showFallbackIfAway(item)
                    mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 20))
                    return
                }
                // Off the queue once it is up (`present` returns after the flip), not before: a
                // full queue's decoder (an armed override's, parked) woke at the pop and took the
                // core the draw and the flip's request needed, a refresh late now and then (#35).
                let flip = present(frame, of: item)
                takeOff(frame, of: item)
                if let flip {
                    time.clock.seek(to: frame.pts, atHost: flip)
                    logger.debug("clock: set by a first frame to \(PlaybackTimekeeper.text(frame.pts)) (\(time.state.timeControlStatus))")
                }
                time.needsFirstFrame = false
                reportReady(item)
                return
            }
            var nextFrame: DecodedFrame?
            if case .frame(let next, let nextGeneration)? = item.pipeline.frames.peekSecond(), nextGeneration == generation {
                nextFrame = next
            }
            let now = MonotonicClock.hostTime()
            let flip = screen.expectedFlip(afterHost: now)
            if time.clock.isRunning {
                item.alignVideoIfDrifted(head: frame, next: nextFrame, position: time.clock.mediaTime(atHost: flip), logger: logger)
            }
            switch FramePacer.decide(framePTS: frame.pts, nextFramePTS: nextFrame?.pts, clock: time.clock,
                                     refreshInterval: output.refreshInterval, now: flip) {
            case .present:
                presentAtItsMoment(frame, of: item, aim: flip)   // takes it off the queue once it is up
            case .drop:
                _ = item.pipeline.frames.pop(timeout: 0)
                item.lastDroppedPTS = frame.pts
                screen.noteDropped()
            case .wait(let until):
                stall.awaitingFrame(dueAt: until, of: item, rate: time.state.rate)
                // Due for a flip from `until` on: woken early by the draw and the aim's margin, so
                // that the flip nearest its time is still reachable (else a frame whose moment fell
                // within a draw before a vblank was aimed at the next, a refresh late).
                let wake = until - screen.drawLead
                // The frame is not due at the coming flip: a moving layer may take that flip.
                if refreshAnimation(item, orWaitUntil: wake) { return }
                mailbox.wait(untilHost: stall.wake(for: wake))
            case .waitForClock:
                if refreshAnimation(item, orWaitUntil: now + MediaTime(value: 1, timescale: 20)) { return }
                mailbox.wait(untilHost: now + MediaTime(value: 1, timescale: 20))
            }
        }
        time.sendTimeEventIfDue(interval: settings.timeEventInterval)
    }

    /// No frame of `item` to show until `until` (nil: none is coming for now: a picture held
    /// while the sound plays on): what a frame's turn would do is done here, the layers' and a
    /// transition's looks drawn, the time events and the snapshot sent; then the loop waits
    /// until then, a quarter second at most, so its other turns come too (the next item
    /// opened in time, a wall's clock followed, an overlay's change drawn). Held, it looks
    /// again within a twentieth: a gap in the picture ends with a frame due at once.
    private func keepTurns(of item: ActiveItem, until: MediaTime?) {
        time.sendTimeEventIfDue(interval: settings.timeEventInterval)
        let now = MonotonicClock.hostTime()
        if lastHeldSnapshot.map({ now - $0 >= MediaTime(value: 1, timescale: 4) }) ?? true {
            lastHeldSnapshot = now
            publishSnapshot()   // the clock moves on with no frame to publish it
        }
        let wake = min(until ?? now + MediaTime(value: 1, timescale: 20), now + MediaTime(value: 1, timescale: 4))
        if refreshAnimation(item, orWaitUntil: wake) { return }
        mailbox.wait(untilHost: screen.nextChange(afterHost: now).map { min($0, wake) } ?? wake)
    }

    /// The item's source went away or came back (its demux thread saw it): one event each.
    private func reportSourceChanges(_ item: ActiveItem) {
        for change in item.pipeline.takeSourceChanges() {
            switch change {
            case .lost(let reason): onEvent?(.sourceLost(index: item.index, reason: reason))
            case .back(let seconds): onEvent?(.sourceBack(index: item.index, afterSeconds: seconds))
            }
        }
    }

    /// A live stream away for a second puts up its `fallback`, once per time away (the
    /// decoder empty, or a few late frames waiting for more).
    private func showFallbackIfAway(_ item: ActiveItem) {
        if let since = item.stalledSince, item.pipeline.progress.isLive,
           let slate = item.fallback?.due(dryFor: MonotonicClock.hostTime() - since, screen: output.size, logger: logger) {
            screen.presentFiller(item: item.index, picture: slate)
        }
    }

    /// The decoder has nothing ready. Playing on would show a frozen picture with a running
    /// clock; instead time waits (timeControlStatus waitingToPlay) until frames come.
    private func noteStarvation(_ item: ActiveItem, pictureHeld: Bool) {
        // A live source that has not answered its first open is away from its start.
        if item.stalledSince == nil, let since = item.pipeline.awayBeforeOpening { item.stalledSince = since }
        showFallbackIfAway(item)
        guard time.state.timeControlStatus == .playing, let last = item.lastPresentedPTS else { return }
        // A picture held while the sound plays on (a song's cover, a video shorter than its
        // sound) is not a dry queue: the clock goes on with the sound (`HeldPicture`).
        if pictureHeld { return }
        let position = time.clock.mediaTime(atHost: MonotonicClock.hostTime())
        if RebufferPolicy.hasRunDry(position: position, lastPresented: last, frameDuration: item.expectedFrameDuration) {
            time.apply(.bufferEmpty)
            let waitsAt = RebufferPolicy.stalledPosition(position: position, lastPresented: last, frameDuration: item.expectedFrameDuration)
            time.clock.seek(to: waitsAt, atHost: MonotonicClock.hostTime())
            time.needsFirstFrame = true
            item.noteRanDry(logger: logger)
            logger.debug("clock: ran dry at \(PlaybackTimekeeper.text(position)); waits at \(PlaybackTimekeeper.text(waitsAt))")
            publishSnapshot()   // the snapshot `bufferEmpty` published had the clock before this move
        }
    }

    private func reportReady(_ item: ActiveItem) {
        if !item.hasReportedReady {
            item.hasReportedReady = true
            time.apply(.itemReady(duration: item.duration))
        }
        time.apply(.bufferReady)
    }

    /// A ticker moves and a transition changes at every refresh, whatever the video does
    /// (between two frames, on a still, paused): the loop gives them the refreshes no frame
    /// takes. At most one a refresh interval (a display that flips at once would otherwise be
    /// asked without pause): before that, the loop waits until then or `until`, whichever comes
    /// first. False when nothing animates or nothing is on screen to animate: the caller waits
    /// as before.
    private func refreshAnimation(_ item: ActiveItem, orWaitUntil until: MediaTime) -> Bool {
        guard screen.animates, let pts = item.lastPresentedPTS else { return false }
        let now = MonotonicClock.hostTime()
        if let last = lastAnimationRefresh, now < last + output.refreshInterval - MediaTime(value: 1, timescale: 1000) {
            mailbox.wait(untilHost: min(until, last + output.refreshInterval))
            return true
        }
        let shown = PresentedFrame(item: item.index, pts: (pts - item.plan.start).seconds, dropped: screen.dropped,
                                   video: true, generation: item.pipeline.currentGeneration, insert: item.reference.isInsert)
        guard screen.refreshAnimation(overlay: time.overlayView, shown: shown) else { return false }
        lastAnimationRefresh = now
        return true
    }

    func layout(of frame: DecodedFrame, in item: ActiveItem) -> GravityLayout {
        screen.layout(of: frame, in: item, gravity: settings.playback.gravity, region: settings.playback.region)
    }

    func shown(_ frame: DecodedFrame, of item: ActiveItem, event: String? = nil, aim: MediaTime? = nil) -> PresentedFrame {
        PresentedFrame(aim: aim?.seconds, item: item.index, pts: (frame.pts - item.plan.start).seconds, dropped: screen.dropped,
                       video: true, generation: item.pipeline.currentGeneration, event: event, insert: item.reference.isInsert)
    }

    /// Puts `frame` up (FramePresenter); `aim`: the flip the pacer chose it for (it is timed).
    /// The flip's host time, or nil if the display failed.
    @discardableResult
    func present(_ frame: DecodedFrame, of item: ActiveItem, event: String? = nil, aim: MediaTime? = nil) -> MediaTime? {
        guard let flip = screen.present(frame, layout: layout(of: frame, in: item), scaler: item.scaler, overlay: time.overlayView,
                                        shown: shown(frame, of: item, event: event, aim: aim), predrawn: item.predrawn.take(),
                                        timed: aim != nil) else { return nil }
        presented(frame, of: item)
        return MonotonicClock.hostTime(seconds: flip)
    }

    /// `frame` of `item` is on screen.
    func presented(_ frame: DecodedFrame, of item: ActiveItem) {
        items.closeRetired()
        if item.lastPresentedPTS != frame.pts { stall.progressed() }   // an overlay redraw is no progress
        item.notePresented(frame.pts, ownDuration: frame.ownDuration, continuesRun: !time.needsFirstFrame)
        screen.overlay?.keep(frame, of: item)
        screen.layers?.keep(frame, of: item)
        publishSnapshot()
    }

    /// Paused, waiting or on a still, no frame comes to carry the overlay's change: the last
    /// picture goes up again with it. Its stats line says `"event":"overlay"`.
    /// The same for a layer whose text changed by itself (a clock's minute): `"event":"layers"`.
    private func refreshOverlayIfStale() {
        guard let item = current else { return }
        let carried = time.state.timeControlStatus == .playing && item.plan.stillDuration == nil
            && !item.pipeline.holdsPictureForSound(shown: item.lastPresentedPTS)
        if let frame = screen.overlay?.frameToRedraw(of: item, over: time.overlayView, carriedByFrames: carried) {
            present(frame, of: item, event: "overlay")
        } else if let frame = screen.layers?.frameToRedraw(of: item, carriedByFrames: carried) {
            present(frame, of: item, event: "layers")
        }
    }

    /// The title `preview()` names for the item after this one, kept with the navigator it was
    /// worked out for (PlaybackLoop+Snapshot.swift).
    var upNext: (navigator: PlaylistNavigator, title: String?)?
    /// Since when the published state has waited for data (PlayerSnapshot.waitingForDataSince).
    var waitingForDataSince: Double?
}
