import Foundation
import KioskCore
import KioskInput
import KioskPlayer
import Logging

/// The input service of a running kiosk, which a reload of kiosk.conf's `input` section
/// replaces: the old one is stopped (devices closed, grabs released) and a new one opened with
/// the new devices, grab, keys, gestures and seek step, and so is a change of the triggers
/// (`LiveTriggers`). Touch and keys pause for the moment that takes; the picture and sound do not.
package final class LiveInput: @unchecked Sendable {
    // Safe to share: `service` and `stopped` are guarded by `lock`.
    private let lock = NSLock()
    private var service: InputService?
    private var stopped = false
    private let output: VideoOutput
    private let player: QueuePlayer
    private let logger: Logger
    private let triggers: LiveTriggers?
    /// The input settings in force, for a reopen that only the triggers ask for.
    private var config: InputConfig?

    package init(output: VideoOutput, player: QueuePlayer, logger: Logger, triggers: LiveTriggers? = nil) {
        self.output = output
        self.player = player
        self.logger = logger
        self.triggers = triggers
    }

    /// Starts input with `config`, or swaps the running service for one with `config`.
    package func apply(_ config: InputConfig) {
        lock.withLock {
            guard !stopped else { return }
            self.config = config
            service?.stop()
            service = InputWiring.start(config, output: output, player: player, logger: logger,
                                        triggers: triggers?.triggers ?? TriggerSet(), runCommand: triggers?.runCommand)
        }
    }

    /// The triggers changed: input opened again with the settings in force (before the player
    /// started, nothing: `apply` opens it with the new table).
    package func reopenForTriggers() {
        guard let config = lock.withLock({ self.config }) else { return }
        apply(config)
    }

    /// For good: a reload arriving during shutdown opens nothing again.
    package func stop() {
        lock.withLock {
            stopped = true
            service?.stop()
            service = nil
        }
    }
}
