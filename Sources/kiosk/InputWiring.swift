import ArgumentParser
import KioskCore
import KioskInput
import KioskPlayer
import Logging

/// `kiosk play`'s input options; `kiosk run` reads the same settings from kiosk.conf's `input`.
struct PlayInputOptions: ParsableArguments {
    @Flag(name: .customLong("no-input"), help: "Do not read touchscreens and keys.")
    var noInput = false

    @Option(name: .customLong("seek-step"), help: "Seconds the seek keys and double taps move.")
    var seekStep: Double = 10

    @Flag(name: .customLong("grab-input"), help: "Grab input devices, so keys do not also reach the console.")
    var grabInput = false

    @Option(name: .customLong("input-device"),
            help: "Read only this device (an /dev/input/eventN path or a device name); repeat for more. Default: every touchscreen and keyboard.")
    var inputDevices: [String] = []

    @Flag(name: .customLong("double-tap"), help: "A double tap skips --seek-step on the tapped half of the screen.")
    var doubleTap = false

    func validate() throws {
        guard seekStep > 0, seekStep.isFinite else { throw ValidationError("--seek-step must be more than 0 seconds") }
    }

    var config: InputConfig {
        var config = InputConfig()
        config.enabled = !noInput
        config.seekStep = MediaTime(seconds: seekStep)
        config.grab = grabInput
        if !inputDevices.isEmpty { config.devices = .listed(inputDevices) }
        config.gestures.doubleTap = doubleTap
        return config
    }
}

enum InputWiring {
    /// Starts reading touch and keys for `player`, touches mapped to `output` as the viewer
    /// sees it; nil when input is switched off. Never fails: devices that cannot be read are
    /// logged, and ones plugged in later are picked up.
    /// `triggers` fire by their keys and zones.
    static func start(_ config: InputConfig, output: VideoOutput, player: QueuePlayer, logger: Logger,
                      triggers: TriggerSet = TriggerSet()) -> InputService? {
        guard config.enabled else { return nil }
        let service = InputService(config: config, screen: screen(of: output), player: OverlayRelay(player),
                                   logger: logger, triggers: triggers)
        service.start()
        return service
    }

    /// The panel's scanout and the display rotation. A DRM display whose plane rotates hands
    /// out transposed buffers, so its mode, not its buffer size, is the panel's orientation.
    static func screen(of output: VideoOutput) -> InputScreen {
        InputScreen(scanout: output.scanoutSize, rotation: output.rotation)
    }
}
