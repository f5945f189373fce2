import KioskCore
import KioskInput
import KioskPlayer
import Logging

package enum InputWiring {
    /// Starts reading touch and keys for `player`, touches mapped to `output` as the viewer
    /// sees it; nil when input is switched off. Never fails: devices that cannot be read are
    /// logged, and ones plugged in later are picked up.
    /// `triggers` fire by their keys and zones.
    package static func start(_ config: InputConfig, output: VideoOutput, player: QueuePlayer, logger: Logger,
                      triggers: TriggerSet = TriggerSet(), runCommand: (@Sendable (String) -> String?)? = nil) -> InputService? {
        guard config.enabled else { return nil }
        let service = InputService(config: config, screen: screen(of: output), player: OverlayRelay(player),
                                   logger: logger, triggers: triggers, runCommand: runCommand)
        service.start()
        return service
    }

    /// The panel's scanout and the display rotation. A DRM display whose plane rotates hands
    /// out transposed buffers, so its mode, not its buffer size, is the panel's orientation.
    package static func screen(of output: VideoOutput) -> InputScreen {
        InputScreen(scanout: output.scanoutSize, rotation: output.rotation)
    }
}
