import Foundation
import KioskCore
import KioskDisplay

/// What `kiosk probe FILE` answers for: the screen, gravity, region and hwdec `kiosk run`
/// would use, read from the same kiosk.conf (its display section and playback), the command
/// line's `--display`, `--gravity` and `--hwdec` over it. Without a kiosk.conf: the first
/// connected screen at its preferred mode, and kiosk.conf's defaults (fit, hwdec off), as an
/// unconfigured `kiosk run` plays; `--hwdec auto` asks what the box could do. With several screens on one
/// card the screens before it take their CRTCs first, in the probe as in the player.
package struct ProbeSettings {
    package static let defaultConfig = "/etc/kiosk/kiosk.conf"

    package let gravity: VideoGravity
    package let region: ScreenRegion?
    package let hwdec: HardwareDecoding
    /// The DRM screen to read; nil where kiosk.conf plays headless (`noScreen` says so).
    package let display: DRMDisplayOptions?
    package let noScreen: String?
    /// A separate layout's screens opened before the one answered for (DRM ones): on its card,
    /// they take their CRTCs first, and with them the planes only those CRTCs can use.
    package let earlierScreens: [DRMDisplayOptions]
    /// Which kiosk.conf was followed, or why none: the last line of the text answer.
    package let source: String

    /// The default kiosk.conf's errors, for stderr (the defaults answered instead).
    package let warning: String?

    /// `config`: a path, "none", or nil for `defaultPath` (/etc/kiosk/kiosk.conf) where it
    /// exists. A file named on the command line that cannot be read or has errors fails the
    /// probe (exit 2, as `kiosk check`); the default one's are `warning`, and the defaults answer.
    package init(config: String?, card: String?, gravity: VideoGravity?, hwdec: HardwareDecoding?,
                 defaultPath: String = ProbeSettings.defaultConfig) throws {
        var warning: String?
        var whole: KioskConfig?
        var source: String
        switch config {
        case "none"?:
            source = "none (--config none): the defaults"
        case let path?:
            whole = try ConfigReading.load(path)
            source = path
        case nil where FileManager.default.fileExists(atPath: defaultPath):
            do {
                whole = try ConfigReading.load(defaultPath)
                source = defaultPath
            } catch {
                warning = "kiosk probe: \(error)"
                source = "\(defaultPath) cannot be used (why on stderr; `kiosk check` lists a file's errors): the defaults"
            }
        case nil:
            source = "no \(defaultPath) (--config PATH reads one): the defaults"
        }
        // As `kiosk run` opens its screens (ScreenWiring, DisplayOpener): several separate ones
        // are each an engine's, the main one the screen whose sound plays, with its own display
        // section or `--display`-style text; mirror and span are one picture the CPU draws for
        // all, whatever `--display` says (run ignores it there too).
        var file = whole
        var screen = DisplaySettings(whole?.display ?? DisplayConfig(), override: nil)
        var combined: String?
        var earlier: [DRMDisplayOptions] = []
        if let whole, let displays = whole.displays, !displays.outputs.isEmpty {
            let index = displays.layout == .separate ? displays.audioOutputIndex : 0
            let output = displays.outputs[index]
            file = whole.separateScreen(index)
            screen = DisplaySettings(output.display, override: output.target)
            if displays.layout == .separate {
                source += " (screen \(output.name), \(index + 1) of \(displays.outputs.count))"
                for before in displays.outputs.prefix(index) {
                    guard case .drm(let card, let connector, _) = DisplaySettings(before.display, override: before.target).target else { continue }
                    earlier.append(DRMDisplayOptions(card: card, connector: connector))
                }
            } else {
                combined = "the CPU converts it: displays.layout is \(displays.layout.rawValue), one picture the CPU draws for "
                    + "the screens (no plane shows a frame as decoded there)"
            }
        }
        self.gravity = gravity ?? (file ?? KioskConfig()).playback.gravity
        self.region = file?.playback.region
        self.hwdec = hwdec ?? (file ?? KioskConfig()).playback.hwdec
        videoPlane = screen.videoPlane
        var options = DRMDisplayOptions(rotation: screen.rotation)
        options.videoPlane = screen.videoPlane
        switch (combined, screen.target, card) {
        case (let combined?, _, _):
            display = nil
            noScreen = combined
        case (nil, .headless(_, _, _, let planes), nil):
            display = nil
            noScreen = "the CPU converts it: the display is headless (frames drawn into memory"
                + (planes ? ", a simulated plane beside them: no driver to ask)" : ", no screen shows them)")
        case (nil, .drm(let named, let connector, let mode), _):
            options.card = card ?? named
            options.connector = connector
            options.mode = mode
            display = options
            noScreen = nil
        case (nil, _, _):
            options.card = card
            display = options
            noScreen = nil
        }
        earlierScreens = earlier
        self.source = source
        self.warning = warning
    }

    /// kiosk.conf's `display.video_plane` for the screen answered for: `off` keeps a device's
    /// frames from being handed on as DRM PRIME, as the player's item plan does.
    package let videoPlane: VideoPlanePolicy

    /// The screen the answer is for, or the answer itself where kiosk.conf leaves no plane to
    /// ask (headless, several screens drawn as one).
    package func screen() -> Result<ProbedScreen, Error> {
        guard let display else { return .failure(Settled(description: noScreen ?? "no screen")) }
        return Result { try ProbedScreen.open(display, after: earlierScreens) }
    }

    /// An answer kiosk.conf settles without a screen: said as it is.
    package struct Settled: Error, CustomStringConvertible {
        package let description: String
    }
}
