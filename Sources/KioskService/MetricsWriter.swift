import Foundation
import KioskCore
import Logging

/// `metrics.textfile` for `kiosk run`: the health (`HealthSampler`) in Prometheus' text format,
/// for node_exporter's textfile collector, rewritten whole every `interval` and once at a clean
/// stop, on a queue of its own: the presenter thread never waits for it.
package final class MetricsWriter: @unchecked Sendable {
    // Safe to share: `timer` and `loggedFailure` are touched only on `queue`.
    private let queue = DispatchQueue(label: "kiosk-metrics")
    private let path: String
    private let interval: Double
    private let sampler: HealthSampler
    private let logger: Logger
    private var timer: DispatchSourceTimer?
    private var loggedFailure: String?

    package init(config: MetricsConfig, path: String, sampler: HealthSampler, logger: Logger) {
        self.path = path
        interval = config.interval.seconds
        self.sampler = sampler
        self.logger = logger
    }

    /// Once the player exists (attached to the sampler): the first write before this returns,
    /// then one every interval.
    package func begin() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.write() }
        queue.sync {
            self.timer = timer
            write()
        }
        timer.resume()
    }

    /// A clean stop: the last figures written (saying kiosk stopped), the timer stopped.
    package func finish() {
        sampler.stopping()
        queue.sync {
            timer?.cancel()
            timer = nil
            write()
        }
    }

    private func write() {
        guard let snapshot = sampler.health else { return }
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
