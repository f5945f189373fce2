import ArgumentParser
import KioskCore

/// `kiosk play`'s overlay options; `kiosk run` reads kiosk.conf's `overlay` section. Off by
/// default here: `play` is the tool for quick looks and tests that compare screenshots.
struct PlayOverlayOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Show the on-screen display (title, progress, play/pause) after a touch or key.")
    var overlay = false

    @Option(name: .customLong("overlay-hide-after"), help: "Seconds the overlay stays after the last touch or key.")
    var overlayHideAfter: Double = 3

    @Option(name: .customLong("overlay-font"), help: "The overlay's font: auto or the path of a TrueType file.")
    var overlayFont = "auto"

    func validate() throws {
        try checkSeconds(overlayHideAfter, option: "--overlay-hide-after")
    }

    /// The settings; the font also writes the idle screen's line when the overlay is off.
    var config: OverlayConfig {
        var config = OverlayConfig()
        config.enabled = overlay
        config.hideAfter = MediaTime(seconds: overlayHideAfter)
        config.font = overlayFont == "auto" ? .auto : .file(overlayFont)
        return config
    }
}

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
        try checkSeconds(seekStep, option: "--seek-step")
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
