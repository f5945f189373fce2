import Foundation
import KioskCore
import KioskMedia
import Logging

/// The presenter thread (DESIGN.md): takes decoded frames when the clock says they are due,
/// scales them straight into the display's back buffer, flips, and moves through the playlist.
/// It alone owns the player's state; other threads talk to it through the mailbox.
final class PlaybackLoop {
    var publish: ((PlayerSnapshot) -> Void)?
    /// Puts frames and filler up, with the overlay; tells the stats file and the snapshots.
    let screen: FramePresenter
    var output: VideoOutput { screen.output }
    /// What the loop plays by; a live reload replaces it whole (PlaybackLoop+Reload).
    var settings: PlayerSettings
    let audio: AudioPath?
    let mailbox: CommandMailbox
    let logger: Logger
    let onEvent: (@Sendable (PlayerEvent) -> Void)?

    /// What plays next: the cursor, a switch waiting for the seam, an insert playing, failures
    /// found ahead (KioskCore's `PlaylistNavigator`).
    var navigator: PlaylistNavigator
    /// Set while the display is off (PlaybackLoop+Power.swift): where playback picks up.
    var poweredOff: PoweredOff?
    var state = PlaybackState()
    var clock = PlaybackClock(hostTime: MonotonicClock.hostTime())
    /// The item on screen, the one prepared to follow, those handing over.
    let items: PlayingItems
    var current: ActiveItem? { items.current }
    var upcoming: ActiveItem? { items.upcoming }
    var dropped = 0
    /// After a start, a seek or an unprepared switch: show the next frame at once and set the
    /// clock to it, whatever the clock said.
    var needsFirstFrame = true
    var stopping = false
    var finished = false
    /// Nothing playable: the next pass starts at this host time.
    var idleUntil: MediaTime?
    var lastTimeEvent: MediaTime?
    /// The host time of the last audio report the clock followed.
    var lastAudioObservation: MediaTime?
    /// Ends a local item whose picture froze while playing (PlaybackLoop+StallGuard.swift).
    var stallGuard = StallGuard()

    init(output: VideoOutput, cursor: PlaylistCursor, settings: PlayerSettings, stats: StatsWriter?, audio: AudioPath?,
         mailbox: CommandMailbox, logger: Logger, onEvent: (@Sendable (PlayerEvent) -> Void)?) {
        navigator = PlaylistNavigator(cursor: cursor)
        self.settings = settings
        self.audio = audio
        self.mailbox = mailbox
        self.logger = logger
        self.onEvent = onEvent
        items = PlayingItems(audio: audio, logger: logger)
        let snapshots = settings.snapshotDirectory.map {
            SnapshotSaver(directory: $0, interval: settings.snapshotInterval, logger: logger)
        }
        screen = FramePresenter(output: output, overlay: settings.overlay, splash: settings.display.splash,
                                observers: [stats as PresentedFrameObserver?, snapshots].compactMap { $0 },
                                heartbeat: mailbox.heartbeat, logger: logger)
    }

    func run() {
        // The sound waits for the first picture: the clock starts there, not when decoding does.
        audio?.writer.pause()
        apply(.setVolume(settings.audio.volume))
        apply(.setMuted(settings.audio.muted))
        apply(.setDefaultRate(settings.playback.defaultRate))
        if !settings.playback.startPaused { apply(.play) }
        // Up until the first frame replaces it (no console text in between).
        if screen.hasSplash { screen.presentFiller(item: -1, dropped: 0, splash: true) }
        begin(navigator.advance(), seamFrom: nil)
        while !stopping {
            for command in mailbox.takeAll() { handle(command) }
            if stopping { break }
            if current == nil || finished { watchForStall() }   // stands down: nothing should be playing
            if let until = idleUntil {
                if MonotonicClock.hostTime() < until { mailbox.wait(untilHost: until); continue }
                idleUntil = nil
                begin(navigator.advance(), seamFrom: nil)
                continue
            }
            guard let item = current, !finished else {
                if finished && settings.exitWhenFinished { break }
                mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 4))
                continue
            }
            followAudio(item)
            step(item)
            watchForStall()
            refreshOverlayIfStale()
            // After the step, not before: opening the next item right at a seam would delay
            // the incoming item's first frame.
            if item === current, item.lastPresentedPTS != nil { prepareUpcomingIfDue(after: item) }
        }
        audio?.stop()
        items.closeAll()
        publishSnapshot()
    }

    /// One look at the head of the current item's frame queue, and what it calls for.
    private func step(_ item: ActiveItem) {
        guard let head = item.pipeline.frames.peek(timeout: 0.01) else {
            noteStarvation(item)
            return
        }
        let generation = item.pipeline.currentGeneration
        switch head {
        case .failed(let error):
            fail(item, error)
        case .end(let length, let frameGeneration):
            guard frameGeneration == generation else { _ = item.pipeline.frames.pop(timeout: 0); return }
            reachEnd(of: item, length: length)
        case .frame(let frame, let frameGeneration):
            guard frameGeneration == generation else { _ = item.pipeline.frames.pop(timeout: 0); return }
            frame.applyShift(item.videoShift)
            if needsFirstFrame || settings.untimed {
                guard item.hasRefilled(for: frame, logger: logger) else {   // a stalled stream refills first
                    mailbox.wait(untilHost: MonotonicClock.hostTime() + MediaTime(value: 1, timescale: 20))
                    return
                }
                _ = item.pipeline.frames.pop(timeout: 0)
                if let flip = present(frame, of: item) {
                    clock.seek(to: frame.pts, atHost: flip)
                }
                needsFirstFrame = false
                reportReady(item)
                return
            }
            var nextFrame: DecodedFrame?
            if case .frame(let next, let nextGeneration)? = item.pipeline.frames.peekSecond(), nextGeneration == generation {
                nextFrame = next
            }
            let now = MonotonicClock.hostTime()
            let flip = screen.expectedFlip(afterHost: now)
            if clock.isRunning {
                item.alignVideoIfDrifted(head: frame, next: nextFrame, position: clock.mediaTime(atHost: flip), logger: logger)
            }
            let nextPTS = nextFrame?.pts
            switch FramePacer.decide(framePTS: frame.pts, nextFramePTS: nextPTS, clock: clock,
                                     refreshInterval: output.refreshInterval, now: flip) {
            case .present:
                _ = item.pipeline.frames.pop(timeout: 0)
                _ = present(frame, of: item)
            case .drop:
                _ = item.pipeline.frames.pop(timeout: 0)
                dropped += 1
            case .wait(let until):
                noteAwaitedFrame(dueAt: until, of: item)
                waitWatched(untilHost: until)
            case .waitForClock:
                mailbox.wait(untilHost: now + MediaTime(value: 1, timescale: 20))
            }
        }
        sendTimeEventIfDue()
    }

    /// The decoder has nothing ready. Playing on would show a frozen picture with a running
    /// clock; instead time waits (timeControlStatus waitingToPlay) until frames come.
    private func noteStarvation(_ item: ActiveItem) {
        guard state.timeControlStatus == .playing, let last = item.lastPresentedPTS else { return }
        let position = clock.mediaTime(atHost: MonotonicClock.hostTime())
        if RebufferPolicy.hasRunDry(position: position, lastPresented: last, frameDuration: item.expectedFrameDuration) {
            apply(.bufferEmpty)
            needsFirstFrame = true
            item.noteRanDry(logger: logger)
        }
    }

    private func reportReady(_ item: ActiveItem) {
        if !item.hasReportedReady {
            item.hasReportedReady = true
            apply(.itemReady(duration: item.duration))
        }
        apply(.bufferReady)
    }

    /// Puts `frame` up (FramePresenter); the flip's host time, or nil if the display failed.
    @discardableResult
    func present(_ frame: DecodedFrame, of item: ActiveItem, event: String? = nil) -> MediaTime? {
        let shown = PresentedFrame(item: item.index, pts: (frame.pts - item.plan.start).seconds, dropped: dropped,
                                   video: true, generation: item.pipeline.currentGeneration, event: event)
        guard let flip = screen.present(frame, layout: layout(of: frame, in: item), scaler: item.scaler,
                                        overlay: overlayView, shown: shown) else { return nil }
        items.closeRetired()
        if item.lastPresentedPTS != frame.pts { noteProgress() }   // an overlay redraw is no progress
        item.notePresented(frame.pts)
        screen.overlay?.keep(frame, of: item)
        publishSnapshot()
        return MonotonicClock.hostTime(seconds: flip)
    }

    func layout(of frame: DecodedFrame, in item: ActiveItem) -> GravityLayout {
        Scaler.layout(for: frame, on: output.size, gravity: item.entry.item.gravity ?? settings.playback.gravity,
                      displayRotation: output.softwareRotation)
    }

    /// What the overlay shows the player as; nil while nothing plays.
    var overlayView: OverlayPlayerView? {
        guard let item = current else { return nil }
        return OverlayPlayerView(position: currentTime, duration: state.duration ?? item.duration,
                                 timeControlStatus: state.timeControlStatus, title: item.entry.title)
    }

    /// Paused, waiting or on a still, no frame comes to carry the overlay's change: the last
    /// picture goes up again with it. Its stats line says `"event":"overlay"`.
    private func refreshOverlayIfStale() {
        guard let item = current, let frame = screen.overlay?.frameToRedraw(
            of: item, over: overlayView, carriedByFrames: state.timeControlStatus == .playing && item.plan.stillDuration == nil)
        else { return }
        present(frame, of: item, event: "overlay")
    }

    /// Applies an input to the state machine, announces its events and acts on them.
    func apply(_ input: PlaybackInput) {
        let events: [PlaybackEvent]
        do {
            events = try state.handle(input)
        } catch {
            logger.warning("\(error)")
            return
        }
        for event in events {
            switch event {
            case .seek(let target): performSeek(to: target)
            case .rateChanged(let rate) where rate.numerator != 0:
                items.setRate(rate)
            case .volumeChanged, .mutedChanged: applyVolume()
            default: break
            }
            onEvent?(.playback(event, item: current?.index))
        }
        let now = MonotonicClock.hostTime()
        if clock.rate != state.clockRate {
            clock.setRate(state.clockRate, atHost: now)
            // The sound stops and starts with the clock (paused, waiting for frames).
            if state.clockRate.numerator == 0 { audio?.writer.pause() } else { audio?.writer.resume() }
        }
        publishSnapshot()
    }

    private func performSeek(to target: MediaTime) {
        guard let item = current else { return }
        let fileTime = target + item.plan.start
        item.pipeline.seek(to: fileTime)
        audio?.flush()
        clock.seek(to: fileTime, atHost: MonotonicClock.hostTime())
        needsFirstFrame = true
        noteProgress()   // decoding to the target starts the stall guard's count afresh
    }

    /// The audio master (DESIGN.md): the clock follows what is heard, as the writer reports it
    /// after each write. Without sound, or while the device is gone, the monotonic clock leads.
    private func followAudio(_ item: ActiveItem) {
        guard let audio, clock.isRunning, !needsFirstFrame,
              let (heard, host, afterGap) = audio.heardTime(ofItem: Int(item.reference.serial), notBefore: item.plan.start),
              host != lastAudioObservation else { return }
        lastAudioObservation = host
        noteProgress()   // a new report is sound written further
        clock.observeAudio(heard, atHost: host, afterGap: afterGap)
    }

    /// AVPlayer's volume times the item's own level from kiosk.conf; mute on top.
    func applyVolume() {
        guard let audio else { return }
        let itemLevel = current?.entry.item.volume ?? 100
        audio.writer.setVolume(state.volume * itemLevel / 100)
        audio.writer.setMuted(state.isMuted || (current?.entry.item.muted ?? false))
    }

    var currentTime: MediaTime {
        guard let item = current else { return .zero }
        return Swift.max(.zero, clock.mediaTime(atHost: MonotonicClock.hostTime()) - item.plan.start)
    }

    func publishSnapshot() {
        publish?(PlayerSnapshot(state: state, currentTime: currentTime, itemIndex: current?.index,
                                itemTitle: current?.entry.title, framesPresented: screen.presented, framesDropped: dropped,
                                playlistCount: navigator.entries.count, isDisplayOn: !isDisplayOff))
    }

    private func sendTimeEventIfDue() {
        // Like AVPlayer's periodic time observer: time that stands still is not reported again
        // (a seek while paused has its own event).
        guard state.timeControlStatus == .playing else { return }
        guard let interval = settings.timeEventInterval, let onEvent, let item = current else { return }
        let now = MonotonicClock.hostTime()
        if let last = lastTimeEvent, now - last < interval { return }
        lastTimeEvent = now
        onEvent(.time(currentTime, item: item.index))
    }
}
