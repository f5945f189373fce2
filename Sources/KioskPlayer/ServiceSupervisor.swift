import Foundation
import KioskCore
import Logging

/// Tells the service manager how the player is doing: READY once the first picture (a frame or
/// the idle screen) is on screen, a STATUS line when what is playing changes, STOPPING on stop,
/// and WATCHDOG pings only while the presenter is making progress (`PresenterHealth.verdict`):
/// a presenter stuck in a call, or a display failing every flip, starves the watchdog and
/// systemd restarts kiosk. Runs on a thread of its own, never on the presenter's, so a stuck
/// presenter cannot feed it by accident.
public final class ServiceSupervisor: @unchecked Sendable {
    // Safe to share: `readySent`, `lastStatus`, `stalled` and `ended` are touched with `lock` held.
    private let player: QueuePlayer
    private let notifier: ServiceNotifier
    private let logger: Logger
    private let clock = MonotonicClock()
    private let lock = NSLock()
    private let wake = DispatchSemaphore(value: 0)
    private var readySent = false
    private var lastStatus: String?
    private var stalled = false
    private var ended = false
    /// How long the presenter may show no progress before the watchdog goes unfed: half the
    /// watchdog period (then systemd acts within 1.5 periods of the stall), 10 s without one.
    public let stallLimit: Double
    /// How often the player is looked at: a quarter of the watchdog period (at most 1 s).
    public let checkInterval: Double
    /// More for the STATUS line after what plays (content sync's state); set before `start`.
    public var extraStatus: @Sendable () -> String? = { nil }

    public init(player: QueuePlayer, notifier: ServiceNotifier, logger: Logger) {
        self.player = player
        self.notifier = notifier
        self.logger = logger
        let period = notifier.watchdogInterval
        stallLimit = period.map { $0 / 2 } ?? 10
        checkInterval = Swift.min(1, period.map { $0 / 4 } ?? 1)
    }

    /// Starts watching, when a service manager listens; otherwise does nothing.
    public func start() {
        guard notifier.isListening else { return }
        if let period = notifier.watchdogInterval {
            logger.info("service watchdog: \(period) s; fed while the presenter shows progress within \(stallLimit) s")
        }
        WorkerThread.start(name: "kiosk-service") { [self] in
            while !lock.withLock({ ended }) {
                check()
                _ = wake.wait(timeout: .now() + checkInterval)
            }
        }
    }

    /// One look at the player: what to tell the manager now. Public for tests.
    public func check() {
        let health = player.presenterHealth
        let verdict = health.verdict(at: clock.now(), stallLimit: stallLimit)
        let status = ServiceStatusLine.text(title: player.currentItemTitle, index: player.currentItemIndex,
                                            timeControl: player.timeControlStatus,
                                            waiting: player.reasonForWaitingToPlay, verdict: verdict,
                                            hasShownPicture: health.firstPicture != nil)
            + (extraStatus().map { "; " + $0 } ?? "")
        var messages: [ServiceNotification] = []
        let (becameStalled, recovered) = lock.withLock { () -> (Bool, Bool) in
            guard !ended else { return (false, false) }
            if !readySent && health.firstPicture != nil {
                readySent = true
                messages.append(.ready)
            }
            if status != lastStatus {
                lastStatus = status
                messages.append(.status(status))
            }
            if verdict.isHealthy && notifier.watchdogInterval != nil { messages.append(.watchdog) }
            defer { stalled = !verdict.isHealthy }
            return (!verdict.isHealthy && !stalled, verdict.isHealthy && stalled)
        }
        if becameStalled {
            logger.critical("\(verdict): no longer feeding the service watchdog (systemd restarts kiosk when it expires)")
        } else if recovered {
            logger.notice("the presenter makes progress again: feeding the service watchdog")
        }
        if !messages.isEmpty { notifier.send(messages) }
    }

    /// Stopping on request: says so (once) and stops watching.
    public func stopping() {
        let first = lock.withLock { () -> Bool in
            defer { ended = true }
            return !ended
        }
        guard first else { return }
        wake.signal()
        if notifier.isListening { notifier.send([.stopping, .status("stopping")]) }
    }
}
