import Foundation
import KioskCore
import KioskDisplay
import KioskPlayer
import Logging

/// kiosk.conf's `displays:` for `kiosk run`: which screens are opened and what drives each.
/// Mirror and span: one output made of all the screens, for the one engine. Separate: the
/// screen `audio_from` names is the main engine's (everything in `run` drives it as it drives
/// a single display); every other screen gets an engine of its own (a companion) playing its
/// own playlist without sound, on the same monotonic host clock.
package struct ScreenWiring {
    /// The main engine's screen.
    package let output: VideoOutput
    /// Separate layout: the other screens, not yet with their engines.
    private let others: [(index: Int, output: VideoOutput)]

    /// Opens the screens `file` names (its `displays`, or the single `display` through
    /// `DisplayOpener.open` as always). `settings` are the main engine's.
    package static func open(_ file: KioskConfig, settings: inout PlayerSettings, logger: Logger) throws -> ScreenWiring {
        guard let displays = file.displays else {
            return ScreenWiring(output: try DisplayOpener.open(&settings, logger: logger), others: [])
        }
        let paced = !settings.untimed
        guard displays.layout == .separate else {
            // One engine for all: its stats lines name every screen it draws on.
            settings.displayName = displays.outputs.map(\.name).joined(separator: "+")
            return ScreenWiring(output: try DisplayOpener.openCombined(displays, paced: paced), others: [])
        }
        let screens = try DisplayOpener.openScreens(displays, paced: paced)
        let main = displays.audioOutputIndex
        settings.displayName = displays.outputs[main].name
        return ScreenWiring(output: screens[main],
                            others: screens.enumerated().filter { $0.offset != main }.map { ($0.offset, $0.element) })
    }

    /// The other screens' engines: each its output's playlist and gravity, no sound, no
    /// control socket (the main engine has it); the stats file is shared, each line naming
    /// its screen.
    package func companions(of file: KioskConfig, overrides: SettingsOverrides, logger: Logger) throws -> [Companion] {
        guard let displays = file.displays else { return [] }
        return try others.map { index, output in
            let screen = file.separateScreen(index)
            var settings = PlayerSettings(config: screen, overrides: overrides)
            settings.audio.device = .none
            settings.control.socketPath = nil
            settings.displayName = displays.outputs[index].name
            let entries = ConfigReading.entries(of: screen, logger: logger)
            let cursor = PlaylistCursor(entries: entries, loopMode: settings.playback.loop)
            var named = logger
            named[metadataKey: "display"] = "\(displays.outputs[index].name)"
            let player = try QueuePlayer(output: output, playlist: cursor, settings: settings, audioOutput: nil, logger: named)
            return Companion(name: displays.outputs[index].name, output: output, player: player)
        }
    }
}

/// Another screen's engine in a separate layout: started, stopped and given back with the
/// main one (PlaybackSession).
package struct Companion {
    package let name: String
    package let output: VideoOutput
    package let player: QueuePlayer
}
