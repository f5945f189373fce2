import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import Logging

/// What the player tells its observers, on the presenter thread: keep handlers short.
public enum PlayerEvent: Sendable {
    /// `time`: the current item's position when the engine emitted it (read then, not when an
    /// observer's thread gets to it: a socket client under load would see the time it formats).
    case playback(PlaybackEvent, item: Int?, time: MediaTime)
    /// The periodic time observer's tick: media time in the current item.
    case time(MediaTime, item: Int)
    /// An item could not be played; playback goes on with the next.
    case itemSkipped(index: Int, reason: String)
    /// Every item failed in a pass: the idle screen is up, the next pass starts after `retryAfter`.
    case nothingPlayable(retryAfter: MediaTime)
    /// `loop: none` played its last item.
    case finished
    /// The display was switched off or on (`setDisplayPower`).
    case displayPower(on: Bool)
    /// A playlist request (`PlayerRequest.isPlaylistRequest`) the engine carried out or took
    /// for later, whichever source sent it, before the item change it brings: why an item
    /// that did not end was left. Refused requests are not reported.
    case playlistRequest(PlayerRequest)
    /// A live reload kept the item playing, now at `index` of the new list.
    case currentItemMoved(index: Int)
    /// The current item's network source stopped (`reason`); it is being reopened.
    case sourceLost(index: Int, reason: String)
    /// It sent again, `afterSeconds` after the loss.
    case sourceBack(index: Int, afterSeconds: Double)
}

/// AVQueuePlayer's role for a signage playlist: plays the entries one after the other on a
/// `VideoOutput`, looping as the cursor says, with seams that show no black frame and no stall
/// (the next item is prepared ahead). All state lives on one presenter thread; the methods
/// here post commands to it and read a snapshot, so they may be called from any thread.
public final class QueuePlayer: PlayerRequestSink, @unchecked Sendable {
    // Safe to share: `loop` is touched only by the presenter thread after start; `snapshot`
    // is guarded by `snapshotLock`; `mailbox` is thread-safe.
    private let mailbox = CommandMailbox()
    private let loop: PlaybackLoop
    private let snapshotLock = NSLock()
    private var snapshot = PlayerSnapshot()
    /// Made at init, so a stop that races `start()` waits for the thread about to start.
    private let presenter = WorkerThread(name: "kiosk-present", qos: .userInteractive)

    /// `audioOutput`: where the sound goes, opened by the caller as `settings.audio.device`
    /// says; nil plays without sound (the monotonic clock leads). The player alone uses it
    /// from then on.
    public init(output: VideoOutput, playlist: PlaylistCursor, settings: PlayerSettings = PlayerSettings(),
                audioOutput: AudioOutput? = nil, logger: Logger,
                onEvent: (@Sendable (PlayerEvent) -> Void)? = nil) throws {
        let stats = try settings.statsPath.map { try StatsWriter(path: $0, display: settings.displayName) }
        var audio: AudioPath?
        if let device = audioOutput {
            do {
                audio = try AudioPath(output: device, volume: settings.audio.volume, isMuted: settings.audio.muted,
                                      musicBed: settings.musicBed, logger: logger)
            } catch {
                logger.error("sound: \(device.deviceName): \(error); playing without sound")
            }
        }
        // Every present is recorded for the service watchdog (PresenterHeartbeat.swift).
        let monitored = MonitoredOutput(output, heartbeat: mailbox.heartbeat)
        loop = PlaybackLoop(output: monitored, cursor: playlist, settings: settings, stats: stats, audio: audio,
                            mailbox: mailbox, logger: logger, onEvent: onEvent)
        loop.publish = { [weak self] snapshot in
            guard let self else { return }
            self.snapshotLock.withLock { self.snapshot = snapshot }
        }
    }

    /// Starts the presenter thread: playback begins (or waits paused, per the options).
    /// Starts playback at the playlist's start, or at `point` (resume after a power cut): the
    /// entry is opened at its position before a first frame is shown.
    public func start(at point: PlaylistStartPoint? = nil) {
        presenter.start(handingOver: loop) { $0.run(startingAt: point) }
    }

    /// Stops playback and waits (up to `timeout` seconds) for the presenter thread to end.
    /// Returns false if it did not end in time.
    @discardableResult
    public func stop(timeout: Double = 2) -> Bool {
        mailbox.post(.stop)
        return waitUntilFinished(timeout: timeout)
    }

    /// Waits until playback ends (`loop: none` finished, or `stop()`); false on timeout.
    @discardableResult
    public func waitUntilFinished(timeout: Double? = nil) -> Bool {
        presenter.join(timeout: timeout)
    }

    /// Whether playback has ended (asks nothing of the thread: see `WorkerThread.hasFinished`).
    public var hasFinished: Bool { presenter.hasFinished }

    /// Signals `semaphore` once when playback ends (at once if it has).
    public func signalWhenFinished(_ semaphore: DispatchSemaphore) { presenter.signalWhenDone(semaphore) }

    // MARK: Requests

    /// The one entry for what keys, touch, the control socket and the overlay ask (AVPlayer's
    /// verbs, as `PlayerRequest` spells them); carried out in order on the presenter thread.
    public func send(_ request: PlayerRequest) { mailbox.post(.request(request, answer: nil)) }
    /// `send`, waiting (up to `timeout` seconds) for the engine's decision: nil when it carried
    /// the request out (or took it for later), else why not, from the part that decides (the
    /// state machine, the navigator, the shared timeline, the layers). The control socket's
    /// reply. Before playback starts the request waits its turn and nil is returned at once.
    public func perform(_ request: PlayerRequest, timeout: Double = 5) -> PlayerRefusal? {
        let answer = PresenterAnswer<PlayerRefusal?>()
        guard mailbox.post(.request(request, answer: answer)) else { return nil }
        guard let refusal = answer.wait(timeout: timeout) else {
            return PlayerRefusal("the player did not answer within \(Int(timeout)) s; the request waits its turn")
        }
        return refusal
    }
    /// The overrides to keep opened ahead, highest priority first (`OverrideSet.toArm`): one
    /// asked for then takes the screen at the next refresh.
    public func arm(overrides: [OverrideToArm]) { mailbox.post(.armOverrides(overrides)) }
    /// Live reload of kiosk.conf: the whole new settings value (and the new playlist, when
    /// its entries changed); `SettingsReload` says what of it a playing player takes.
    public func reload(_ settings: PlayerSettings, entries: [PlaylistEntry]? = nil) {
        mailbox.post(.reload(settings, entries: entries))
    }
    /// Saves what is on screen now as a PNG at `path`: the buffer last flipped, or on the video
    /// plane path the frame composed in software as the CPU path would draw it. The presenter
    /// copies the picture between two frames; the PNG is encoded on the calling thread. Not
    /// answered within `timeout` seconds, the request is dropped: the presenter, busy meanwhile,
    /// does not take the picture for nobody.
    public func saveScreenshot(to path: String) throws { try saveScreenshot(to: path, timeout: 10) }
    public func saveScreenshot(to path: String, timeout: Double) throws {
        let request = ScreenshotRequest(deadline: MonotonicClock.hostTime().seconds + timeout)
        mailbox.post(.screenshot(request))
        guard let answer = request.wait(timeout: timeout) else {
            throw ScreenshotError(description: "the player did not answer within \(String(format: "%g", timeout)) s")
        }
        let picture = try answer.get()
        try PNGWriter.write(picture.buffer, to: path)
    }
    /// The person at the screen touched or pressed something: show the overlay (hidden again
    /// `hide_after` seconds after the last such call).
    public func showOverlay() { mailbox.post(.overlay(.input)) }
    /// A scrub asked for `time`: the overlay's bar and time show it before the seek lands.
    public func showOverlay(scrubbingTo time: MediaTime) { mailbox.post(.overlay(.scrub(to: time))) }

    // MARK: Properties (a snapshot the presenter thread publishes)

    public var currentTime: MediaTime { snapshotLock.withLock { snapshot.currentTime } }
    public var duration: MediaTime? { snapshotLock.withLock { snapshot.state.duration } }
    public var status: PlayerItemStatus { snapshotLock.withLock { snapshot.state.status } }
    public var timeControlStatus: TimeControlStatus { snapshotLock.withLock { snapshot.state.timeControlStatus } }
    public var rate: Rational { snapshotLock.withLock { snapshot.state.rate } }
    public var defaultRate: Rational { snapshotLock.withLock { snapshot.state.defaultRate } }
    public var playlistCount: Int { snapshotLock.withLock { snapshot.playlist.count } }
    /// The entries of the playlist playing now (a schedule's, a `load`'s, an insert's while it plays).
    public var playlist: [PlaylistEntry] { snapshotLock.withLock { snapshot.playlist } }
    public var volume: Int { snapshotLock.withLock { snapshot.state.volume } }
    public var isMuted: Bool { snapshotLock.withLock { snapshot.state.isMuted } }
    public var currentItemIndex: Int? { snapshotLock.withLock { snapshot.itemIndex } }
    public var currentItemTitle: String? { snapshotLock.withLock { snapshot.itemTitle } }
    /// The title of the item that plays after this one as things stand now (a switch or an
    /// insert waiting for the seam included); nil when nothing follows (`loop: none` at its last).
    public var nextItemTitle: String? { snapshotLock.withLock { snapshot.nextItemTitle } }
    public var framesPresented: Int { snapshotLock.withLock { snapshot.framesPresented } }
    public var framesDropped: Int { snapshotLock.withLock { snapshot.framesDropped } }
    /// False while display power is off (`display.power`, the control socket's `display_power`).
    public var isDisplayOn: Bool { snapshotLock.withLock { snapshot.isDisplayOn } }
    /// The presenter's signs of life, for the service watchdog (thread-safe).
    public var presenterHealth: PresenterHealth { mailbox.heartbeat.health }
    /// Why time stands still although playing was asked for (AVPlayer.reasonForWaitingToPlay).
    public var reasonForWaitingToPlay: WaitingReason? { snapshotLock.withLock { snapshot.state.reasonForWaitingToPlay } }
    /// Since when (CLOCK_MONOTONIC seconds) it has waited for an item to open or buffer; nil
    /// while it does not (health's alert when that lasts).
    public var waitingForDataSince: Double? { snapshotLock.withLock { snapshot.waitingForDataSince } }
}

public struct ScreenshotError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// What the presenter thread last published for other threads to read.
struct PlayerSnapshot: Sendable {
    var state = PlaybackState()
    var currentTime = MediaTime.zero
    var itemIndex: Int?
    var itemTitle: String?
    /// What plays after the current item as things stand (a switch or insert waiting included).
    var nextItemTitle: String?
    var framesPresented = 0
    var framesDropped = 0
    /// The navigator's entries as they are (shared, not copied: an array's storage is).
    var playlist: [PlaylistEntry] = []
    var isDisplayOn = true
    /// Since when (CLOCK_MONOTONIC seconds) it has waited for data (opening an item, buffering);
    /// nil while it does not.
    var waitingForDataSince: Double?
}
