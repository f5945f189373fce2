import Foundation
import KioskCore
import KioskPlayer
import Logging

/// What the metrics read of a player (`QueuePlayer` has all of it; tests hand a fake).
package protocol MetricsSource: AnyObject, Sendable {
    var timeControlStatus: TimeControlStatus { get }
    var currentItemIndex: Int? { get }
    var playlistCount: Int { get }
    var framesPresented: Int { get }
    var framesDropped: Int { get }
    var presenterHealth: PresenterHealth { get }
}

extension QueuePlayer: MetricsSource {}

/// `metrics.textfile` for `kiosk run`: the kiosk's health (`HealthSnapshot`) in Prometheus' text
/// format, for node_exporter's textfile collector, rewritten whole every `interval` and once at a
/// clean stop. An observer of the player's events (the counters) that hands each over to its
/// own queue, where the sampling and the writing happen: the presenter thread never waits.
package final class MetricsWriter: PlayerEventObserver, @unchecked Sendable {
    // Safe to share: every mutable field is touched only on `queue`.
    private let queue = DispatchQueue(label: "kiosk-metrics")
    private let path: String
    private let interval: Double
    private let sensors: BoxSensors
    private let logger: Logger
    private let startTime: Double
    private var counters = HealthCounters()
    private weak var source: (any MetricsSource)?
    private var timer: DispatchSourceTimer?
    private var loggedFailure: String?
    /// false once `finish` began: the last file says kiosk stopped.
    private var running = true

    package init(config: MetricsConfig, path: String, sensors: BoxSensors, logger: Logger,
                 startTime: Double = Date().timeIntervalSince1970) {
        self.path = path
        interval = config.interval.seconds
        self.sensors = sensors
        self.logger = logger
        self.startTime = startTime
    }

    /// Once the player exists: the first write now, then every interval.
    package func begin(_ source: any MetricsSource) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.write() }
        queue.sync {
            self.source = source
            self.timer = timer
            write()
        }
        timer.resume()
    }

    /// The player's event, on the presenter thread.
    package func observe(_ event: PlayerEvent) {
        guard case .playback(let playback, _, _) = event else { return }
        switch playback {
        case .itemStarted, .itemFailed: queue.async { self.counters.count(playback) }
        default: break
        }
    }

    /// A clean stop: the last figures written, the timer stopped.
    package func finish() {
        queue.sync {
            timer?.cancel()
            timer = nil
            running = false
            write()
        }
    }

    /// The health as it is now (on `queue`); nil once the player is gone.
    package func snapshot() -> HealthSnapshot? {
        queue.sync { sample() }
    }

    private func sample() -> HealthSnapshot? {
        guard let source else { return nil }
        let health = source.presenterHealth
        // The presenter's times are CLOCK_MONOTONIC; Prometheus wants Unix time.
        let monotonicNow = MonotonicClock().now(), wallNow = Date().timeIntervalSince1970
        let state = source.timeControlStatus
        return HealthSnapshot(
            version: KioskVersion.text, startTime: startTime, state: state, itemIndex: source.currentItemIndex,
            playlistCount: source.playlistCount, framesPresented: source.framesPresented,
            framesDropped: source.framesDropped,
            lastPicture: health.lastPicture.map { wallNow - (monotonicNow - $0) },
            pictureOverdue: health.progressOverdueSince.map { max(0, monotonicNow - $0) } ?? 0, running: running,
            displayFailing: health.displayFailingSince != nil, counters: counters,
            temperatures: sensors.temperatures(), underVoltage: sensors.underVoltage())
    }

    private func write() {
        guard let snapshot = sample() else { return }
        do {
            try AtomicFile.write(snapshot.text, to: path, durable: false)
            if loggedFailure != nil {
                logger.notice("metrics: writing \(path) again")
                loggedFailure = nil
            }
        } catch {
            // One line per kind of failure, not one every 15 s.
            if loggedFailure != "\(error)" {
                logger.error("metrics: \(error); the figures are not written (playback goes on)")
                loggedFailure = "\(error)"
            }
        }
    }
}
