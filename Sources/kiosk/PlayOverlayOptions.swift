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
        guard overlayHideAfter > 0, overlayHideAfter.isFinite else {
            throw ValidationError("--overlay-hide-after must be more than 0 seconds")
        }
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
