import Foundation
import KioskCore
import KioskDisplay
import KioskPlayer
import KioskTestSupport
import Logging

/// Records what the supervisor would tell systemd.
final class RecordingNotifier: ServiceNotifier, @unchecked Sendable {
    // Safe to share: `sent` is only touched with `lock` held.
    private let lock = NSLock()
    private var sent: [ServiceNotification] = []
    let isListening = true
    let watchdogInterval: Double?

    init(watchdogInterval: Double?) { self.watchdogInterval = watchdogInterval }

    func send(_ notifications: [ServiceNotification]) { lock.withLock { sent += notifications } }

    var messages: [ServiceNotification] { lock.withLock { sent } }
    var pings: Int { messages.filter { $0 == .watchdog }.count }
    var statuses: [String] {
        messages.compactMap { if case .status(let text) = $0 { return text } else { return nil } }
    }
}

/// A headless screen whose flips stop returning after `framesBeforeHang` frames, until
/// `release()`: a presenter stuck in the display, as with a wedged driver.
final class HangingDisplay: VideoOutput, @unchecked Sendable {
    private let base: HeadlessDisplay
    private let framesBeforeHang: Int
    private let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var presented = 0

    init(size: PixelSize, framesBeforeHang: Int) {
        base = HeadlessDisplay(size: size)
        self.framesBeforeHang = framesBeforeHang
    }

    var size: PixelSize { base.size }
    var refreshInterval: MediaTime { base.refreshInterval }
    func backBuffer() throws -> PixelBuffer { try base.backBuffer() }

    func present(_ buffer: PixelBuffer) throws -> Double {
        let count = lock.withLock { presented += 1; return presented }
        if count > framesBeforeHang { gate.wait(); gate.signal() }
        return try base.present(buffer)
    }

    func release() { gate.signal() }
}

enum PlayerFixture {
    static let logger = Logger(label: "service-tests")

    /// A player looping a small generated clip on `output`.
    static func player(on output: VideoOutput, clipName: String) throws -> QueuePlayer {
        let clip = try MediaFixtures.pattern(clipName, width: 160, height: 120, rate: 25, seconds: 1)
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        let entry = PlaylistEntry(media: .file(clip), item: item, itemIndex: 0)
        return try QueuePlayer(output: output, playlist: PlaylistCursor(entries: [entry], loopMode: .playlist),
                               logger: logger)
    }

    /// Calls `check` every 50 ms until `done` or `timeout` seconds pass; true if `done`.
    static func poll(_ supervisor: ServiceSupervisor, timeout: Double, until done: () -> Bool) -> Bool {
        let clock = MonotonicClock()
        let deadline = clock.now() + timeout
        while clock.now() < deadline {
            supervisor.check()
            if done() { return true }
            clock.sleep(seconds: 0.05)
        }
        return false
    }
}

/// Records the requests a source sends to the player (`shown`: the override changes in order).
final class RecordingRequests: PlayerRequestSink, @unchecked Sendable {
    // Safe to share: `sent` is only touched with `lock` held.
    private let lock = NSLock()
    private var sent: [PlayerRequest] = []
    var requests: [PlayerRequest] { lock.withLock { sent } }
    func send(_ request: PlayerRequest) { lock.withLock { sent.append(request) } }
    private var armLists: [[OverrideToArm]] = []
    /// Each list of overrides to open ahead the engine was sent.
    var armed: [[String]] { lock.withLock { armLists.map { $0.map(\.name) } } }
    func arm(overrides: [OverrideToArm]) { lock.withLock { armLists.append(overrides) } }
    var duration: MediaTime? { nil }
    var rate: Rational { .one }

    /// The override names shown, "-" for each end.
    var shown: [String] {
        requests.compactMap {
            switch $0 {
            case .showOverride(let name, _, _): name
            case .endOverride: "-"
            default: nil
            }
        }
    }
}
