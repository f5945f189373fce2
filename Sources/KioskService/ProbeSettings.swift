import Foundation
import KioskCore
import KioskDisplay

/// What `kiosk probe FILE` answers for: the screen, gravity, region and hwdec `kiosk run`
/// would use, read from the same kiosk.conf (its display section and playback), the command
/// line's `--display`, `--gravity` and `--hwdec` over it. Without a kiosk.conf: the first
/// connected screen at its preferred mode, fit, hwdec auto (what a box could do, not what an
/// unconfigured kiosk does: playback.hwdec is off by default).
package struct ProbeSettings {
    package static let defaultConfig = "/etc/kiosk/kiosk.conf"

    package let gravity: VideoGravity
    package let region: ScreenRegion?
    package let hwdec: HardwareDecoding
    /// The DRM screen to read; nil where kiosk.conf plays headless (`noScreen` says so).
    package let display: DRMDisplayOptions?
    package let noScreen: String?
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
            source = "none (--config none): " + Self.defaults
        case let path?:
            whole = try ConfigReading.load(path)
            source = path
        case nil where FileManager.default.fileExists(atPath: defaultPath):
            do {
                whole = try ConfigReading.load(defaultPath)
                source = defaultPath
            } catch {
                warning = "kiosk probe: \(error)"
                source = "\(defaultPath) has errors (on stderr; `kiosk check` lists them): " + Self.defaults
            }
        case nil:
            source = "no \(defaultPath) (--config PATH reads one): " + Self.defaults
        }
        // Several screens: the one whose sound plays (as `kiosk run` names its first), each
        // with its own display section; mirror and span draw one picture on the CPU for all.
        var file = whole
        var combined: String?
        if let whole, let displays = whole.displays, !displays.outputs.isEmpty {
            let index = displays.layout == .separate ? displays.audioOutputIndex : 0
            file = whole.separateScreen(index)
            source += " (screen \(displays.outputs[index].name), \(index + 1) of \(displays.outputs.count))"
            if displays.layout != .separate, displays.outputs.count > 1 {
                combined = "the CPU converts it: displays.layout is \(displays.layout.rawValue), one picture drawn for "
                    + "\(displays.outputs.count) screens (no plane shows a frame as decoded there)"
            }
        }
        let displayConfig = file?.display ?? DisplayConfig()
        self.gravity = gravity ?? file?.playback.gravity ?? .fit
        self.region = file?.playback.region
        self.hwdec = hwdec ?? file?.playback.hwdec ?? .auto
        if card == nil, let combined {
            display = nil
            noScreen = combined
        } else if card == nil, displayConfig.output == .headless {
            display = nil
            noScreen = "the CPU converts it: display.output is headless (frames drawn into memory, no screen shows them)"
        } else {
            var options = DRMDisplayOptions(rotation: displayConfig.rotation)
            if case .path(let path) = displayConfig.card { options.card = path }
            if let card { options.card = card }
            if case .named(let name) = displayConfig.connector { options.connector = name }
            if case .exactly(let mode) = displayConfig.mode { options.mode = mode }
            options.videoPlane = displayConfig.videoPlane
            display = options
            noScreen = nil
        }
        self.source = source
        self.warning = warning
    }

    package static let defaults = "the first connected screen at its preferred mode, upright, fit, hwdec auto"

    /// The screen the answer is for, or the answer itself where kiosk.conf leaves no plane to
    /// ask (headless, several screens drawn as one).
    package func screen() -> Result<ProbedScreen, Error> {
        guard let display else { return .failure(Settled(description: noScreen ?? "no screen")) }
        return Result { try ProbedScreen.open(display) }
    }

    /// An answer kiosk.conf settles without a screen: said as it is.
    package struct Settled: Error, CustomStringConvertible {
        package let description: String
    }
}
