import Foundation
import KioskCore
import KioskPlayer
import Logging

/// Proof of play, resume and metrics for `kiosk run`: all observe the player's events (which
/// name each item's source, whether it is an insert, and the playlist requests carried out,
/// whichever source sent them). Made before the player, since its event handler is given at init.
package final class OperationsWiring: @unchecked Sendable {
    // Safe to share: the services are set once in init and are thread-safe themselves; `listener`
    // is set and stopped on the thread that runs the session (`playerStarted`, `playerStopping`).
    package let proofOfPlay: ProofOfPlayWriter?
    package let resume: ResumeKeeper?
    package let metrics: MetricsWriter?
    private let metricsAddress: ListenAddress?
    private var listener: MetricsListener?
    private let logger: Logger
    /// The health every request source can ask (`get health`, MQTT's alerts) and the metrics write.
    package let health: HealthSampler

    /// `playRecorded`: told each proof-of-play line too (MQTT's plays topic), on the writer's queue.
    package init(config: KioskConfig, configPath: String, stateDirectory: String, entries: [PlaylistEntry], logger: Logger,
         playRecorded: (@Sendable (String) -> Void)? = nil) {
        proofOfPlay = config.logging.proofOfPlayPath.map { path in
            logger.info("proof of play: \(path) (rotated at \(config.logging.proofOfPlayLimit) bytes)")
            return ProofOfPlayWriter(logging: config.logging, logger: logger, recorded: playRecorded)
        }
        self.logger = logger
        metricsAddress = config.metrics.listen
        let uploads = config.web?.uploadDirectory.map { [(use: "uploads", path: $0)] } ?? []
        let health = HealthSampler(sensors: BoxSensors(stateDirectory: stateDirectory,
                                                       disks: [(use: "state", path: stateDirectory)] + uploads))
        self.health = health
        metrics = config.metrics.textfile.map { path in
            logger.info("metrics: \(path) every \(config.metrics.interval.seconds) s")
            return MetricsWriter(config: config.metrics, path: path, sampler: health, logger: logger)
        }
        if config.playback.resume == .off {
            resume = nil
        } else {
            let absolute = URL(fileURLWithPath: configPath).standardizedFileURL.path
            resume = ResumeKeeper(mode: config.playback.resume, directory: stateDirectory, configPath: absolute,
                                  entries: entries, logger: logger)
        }
    }

    /// Proof of play, then resume, then the health's counts: the last of the player's observers.
    package var observers: [(any PlayerEventObserver)?] { [proofOfPlay, resume, health] }

    /// The player exists: the health reads it.
    package func attach(_ player: QueuePlayer) {
        resume?.attach(player)
        health.attach(player)
    }

    /// Right after the player started: saving places and writing metrics begin.
    package func playerStarted(_ player: QueuePlayer) {
        resume?.begin(player)
        metrics?.begin()
        listener = metricsAddress.flatMap { MetricsListener.start($0, sampler: health, logger: logger) }
    }

    /// A clean stop: the place saved and the last figures written while the player still
    /// knows them; then plays closed.
    package func playerStopping() {
        resume?.finish()
        metrics?.finish()
        listener?.stop()
    }
    package func finish() { proofOfPlay?.finish() }
}
