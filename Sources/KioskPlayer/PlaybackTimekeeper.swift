import KioskCore
import KioskMedia
import Logging

/// The player's time and state, as AVPlayer shows them (rate, timeControlStatus, currentTime):
/// KioskCore's state machine, which checks and applies playback requests, and the clock, which
/// follows the sound. The loop paces frames by it; the sequencer renames it at seams. It acts on
/// the items only as the state machine's events say (a seek, a rate, the volume).
final class PlaybackTimekeeper {
    private(set) var state = PlaybackState()
    var clock = PlaybackClock(hostTime: MonotonicClock.hostTime())
    /// After a start, a seek or an unprepared switch: show the next frame at once and set the
    /// clock to it, whatever the clock said.
    var needsFirstFrame = true
    /// A live item's pace where no sound leads the clock (`LiveLatencySteering`): the clock
    /// runs at the player's rate times this.
    private(set) var liveRateFactor = Rational(1, 1)
    private var runningRate: Rational {
        let rate = state.clockRate, factor = liveRateFactor
        guard factor != .one, rate.numerator != 0 else { return rate }
        let numerator = rate.numerator.multipliedReportingOverflow(by: factor.numerator)
        let denominator = rate.denominator.multipliedReportingOverflow(by: factor.denominator)
        return numerator.overflow || denominator.overflow ? rate : Rational(numerator.partialValue, denominator.partialValue)
    }

    /// Sets the live pace's factor (1 at each new item), the clock's rate changed at once.
    func setLiveRateFactor(_ factor: Rational) {
        guard factor != liveRateFactor else { return }
        liveRateFactor = factor
        if clock.rate != runningRate { clock.setRate(runningRate, atHost: MonotonicClock.hostTime()) }
    }
    /// The host time of the last audio report the clock followed.
    private var lastAudioObservation: MediaTime?
    private var lastTimeEvent: MediaTime?
    /// What the writer was last told; the loop pauses it before the first picture.
    private var soundHold = SoundHold.all
    private enum SoundHold { case none, itemSound, all }
    private let items: PlayingItems
    private let audio: AudioPath?
    private let stall: StallWatch
    private let logger: Logger
    private let onEvent: (@Sendable (PlayerEvent) -> Void)?
    /// After each change the player's snapshot shows (the loop publishes it).
    var changed: () -> Void = {}

    init(items: PlayingItems, audio: AudioPath?, stall: StallWatch, logger: Logger, onEvent: (@Sendable (PlayerEvent) -> Void)?) {
        self.items = items
        self.audio = audio
        self.stall = stall
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Applies a request to the state machine; a `skip` counts from the position now, not
    /// from when it was posted. Also the engine's own settings at start and on reload.
    @discardableResult
    func apply(_ request: PlayerRequest) -> PlayerRefusal? {
        apply(.request(request, position: currentTime)).map { PlayerRefusal($0.reason) }
    }

    /// Applies an input to the state machine, announces its events and acts on them; returns
    /// the state machine's refusal (also logged). `ended`: where the item an `.itemEnded`
    /// names ended (its index and time), when that is not the current item and time (a seam,
    /// announced after the clock turned to the next item).
    @discardableResult
    func apply(_ input: PlaybackInput, ended: (index: Int?, time: MediaTime)? = nil, quietStatus: Bool = false) -> PlaybackError? {
        let events: [PlaybackEvent]
        do {
            events = try state.handle(input)
        } catch {
            logger.warning("\(error)")
            return error
        }
        for event in events {
            switch event {
            case .seek(let target): performSeek(to: target)
            case .rateChanged(let rate) where rate.numerator != 0:
                items.setRate(rate)
            case .volumeChanged, .mutedChanged: applyVolume()
            default: break
            }
            if quietStatus, case .timeControlStatusChanged = event { continue }
            if case .itemEnded = event, let ended {
                onEvent?(.playback(event, item: ended.index, time: ended.time))
            } else {
                onEvent?(.playback(event, item: items.current?.index, time: currentTime))
            }
        }
        let now = MonotonicClock.hostTime()
        if clock.rate != runningRate {
            clock.setRate(runningRate, atHost: now)
            if state.clockRate.numerator == 0 { stopOnShownFrame(at: now) }
        }
        holdSound()
        changed()
        return nil
    }

    /// The sound stops and starts with the clock: paused by a pause, held while the player
    /// waits for frames or an item to open (a music bed plays on then: `holdItemSound`), and
    /// paused outright when there is no item to play (the screen off, nothing playable).
    private func holdSound() {
        let hold: SoundHold
        if state.clockRate.numerator != 0 {
            hold = .none
        } else if let reason = state.reasonForWaitingToPlay, reason != .noItemToPlay {
            hold = .itemSound
        } else {
            hold = .all
        }
        guard hold != soundHold else { return }
        soundHold = hold
        switch hold {
        case .none: audio?.writer.resume()
        case .itemSound: audio?.writer.holdItemSound()
        case .all: audio?.writer.pause()
        }
    }

    /// A stopped clock names the frame on screen (PausePosition says where that puts it).
    private func stopOnShownFrame(at host: MediaTime) {
        guard !needsFirstFrame, let item = items.current, let shown = item.lastPresentedPTS else { return }
        let (head, endIsNext) = item.queuedAfterScreen
        let position = clock.mediaTime(atHost: host)
        let settled = PausePosition.settle(position: position, shown: shown, lastDropped: item.lastDroppedPTS,
                                           head: head, frameDuration: item.expectedFrameDuration, endIsNext: endIsNext)
        if let settled { clock.seek(to: settled, atHost: host) }
        // Where a stopped clock was put, and why: a pause's time and the screen that parted
        // once in CI's loaded vkms guest (2.6 s said, 2.56 on screen, 2.56 said later).
        let next = head.map(Self.text) ?? (endIsNext ? "the end" : "none")
        let moved = settled.map { ": moved to \(Self.text($0))" } ?? ""
        let dropped = item.lastDroppedPTS.map(Self.text) ?? "none"
        logger.debug("clock: stopped at \(Self.text(position)) (\(state.timeControlStatus)); screen \(Self.text(shown)), next decoded \(next), last dropped \(dropped)\(moved)")
    }

    static func text(_ time: MediaTime) -> String { String(format: "%.6f", time.seconds) }

    /// A synchronised player's move to the shared timeline's position within the item (not a
    /// seek anyone asked for, so no seek event): the next frame goes up at once.
    func jump(to target: MediaTime) { performSeek(to: target) }

    private func performSeek(to target: MediaTime) {
        guard let item = items.current else { return }
        let fileTime = target + item.plan.start
        item.pipeline.seek(to: fileTime)
        item.lastDroppedPTS = nil   // a drop before the seek names no frame of the new run
        audio?.flush()
        clock.seek(to: fileTime, atHost: MonotonicClock.hostTime())
        needsFirstFrame = true
        stall.progressed()   // decoding to the target starts the stall guard's count afresh
    }

    /// The audio master (DESIGN.md): the clock follows what is heard, as the writer reports it
    /// after each write. Without sound, or while the device is gone, the monotonic clock leads.
    func followAudio(_ item: ActiveItem) {
        guard let audio, clock.isRunning, !needsFirstFrame,
              let (heard, host, afterGap) = audio.heardTime(ofItem: Int(item.reference.serial), notBefore: item.plan.start),
              host != lastAudioObservation else { return }
        lastAudioObservation = host
        stall.progressed()   // a new report is sound written further
        clock.observeAudio(heard, atHost: host, afterGap: afterGap)
    }

    /// A seamless seam: the outgoing item's end (`.endReached`, said with `endingIndex` at the
    /// time it ended), `rebase` (the clock turned to the next item), then `advance`. The clock
    /// stops and starts as at any end; the status the watchers hear changes only where it is
    /// not what it was before (playing stays playing, without "waiting, no item to play").
    func seam(ending outgoing: ActiveItem?, advancingTo advance: PlaybackInput, rebase: () -> Void) {
        let before = (state.timeControlStatus, state.reasonForWaitingToPlay)
        // The end's snapshot names the incoming item (current already) while the clock is in
        // the outgoing one's time: its time is the incoming item's start, not the other's end
        // (MQTT's retained status said "item 1 ... time 3.95", a's end beside b's title).
        clockInOutgoingItem = true
        apply(.endReached, ended: whereItEnded(outgoing), quietStatus: true)
        clockInOutgoingItem = false
        rebase()
        apply(advance, quietStatus: true)
        let after = (state.timeControlStatus, state.reasonForWaitingToPlay)
        if after != before {
            onEvent?(.playback(.timeControlStatusChanged(after.0, reasonForWaiting: after.1), item: items.current?.index, time: currentTime))
        }
    }

    /// AVPlayer's volume times the item's own level from kiosk.conf; mute on top.
    func applyVolume() {
        guard let audio else { return }
        let item = items.current?.entry.item
        audio.writer.setVolume(state.volume * (item?.volume ?? 100) / 100)
        audio.writer.setMuted(state.isMuted || (item?.muted ?? false))
        // The music bed follows the player's volume and mute, not the item's own.
        audio.writer.setBedLevel(volume: state.volume, isMuted: state.isMuted)
    }

    /// Where the current item is, trimmed start at 0; zero while nothing plays.
    var currentTime: MediaTime { clockInOutgoingItem ? .zero : time(in: items.current) }
    /// Within a seam, before the clock turns to the incoming item.
    private var clockInOutgoingItem = false

    /// Where the clock stands in `item`, counted from its trimmed start: at a seam the current
    /// item is already the incoming one while the clock still runs in the outgoing one's time.
    func time(in item: ActiveItem?) -> MediaTime {
        guard let item else { return .zero }
        return Swift.max(.zero, clock.mediaTime(atHost: MonotonicClock.hostTime()) - item.plan.start)
    }

    /// The index and time an outgoing item's `.itemEnded` is said with (its own, not the
    /// incoming item's); nil, the current item's, when nothing went out.
    func whereItEnded(_ outgoing: ActiveItem?) -> (index: Int?, time: MediaTime)? {
        outgoing.map { ($0.index, time(in: $0)) }
    }

    /// What the overlay shows the player as; nil while nothing plays.
    var overlayView: OverlayPlayerView? {
        guard let item = items.current else { return nil }
        return OverlayPlayerView(position: currentTime, duration: state.duration ?? item.duration,
                                 timeControlStatus: state.timeControlStatus, title: item.entry.title)
    }

    /// Like AVPlayer's periodic time observer, every `interval`: time that stands still is not
    /// reported again (a seek while paused has its own event).
    func sendTimeEventIfDue(interval: MediaTime?) {
        guard state.timeControlStatus == .playing else { return }
        guard let interval, let onEvent, let item = items.current else { return }
        let now = MonotonicClock.hostTime()
        if let last = lastTimeEvent, now - last < interval { return }
        lastTimeEvent = now
        onEvent(.time(currentTime, item: item.index))
    }
}
