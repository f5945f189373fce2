import ArgumentParser
import KioskCore
import KioskService
import Logging

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a kiosk.conf: every error with file:line:column; exit 2 on errors, 0 when fine.")

    @Argument(help: "The configuration file.")
    var file: String = "/etc/kiosk/kiosk.conf"

    @OptionGroup var common: CommonOptions

    func run() throws {
        let logger = common.makeLogger()
        let config = try ConfigReading.load(file)
        let entries = ConfigReading.entries(of: config, logger: logger)
        // Worth a look but legal (ConfigWarnings): like a compiler's, on stderr; the exit code stays 0.
        for warning in ConfigWarnings.of(config) {
            writeStandardError(warning)
        }
        // Logs, like the playlists below, each trigger that has nothing to play now.
        let triggers = TriggerWiring.resolve(config, defaultEntries: entries, logger: logger)
        let overrides = TriggerWiring.resolveOverrides(config, defaultEntries: entries, logger: logger)
        var summary = "\(file): OK, \(entries.count) playlist \(entries.count == 1 ? "entry" : "entries") now"
        // Legal (a file may be copied on later, a stick plugged in), but not what a person
        // checking a new box expects to read as plainly "OK".
        if entries.isEmpty, !config.items.isEmpty, config.displays?.layout != .separate {
            summary += " (nothing plays until a file it names appears: the idle screen says why)"
        }
        for playlist in config.playlists {
            let expansion = PlaylistExpander().expand(playlist.items)
            for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
            let count = expansion.entries.count
            summary += "; \(playlist.name): \(count) \(count == 1 ? "entry" : "entries")"
        }
        // Separate screens play their own playlists (displays.outputs[].items).
        if let displays = config.displays, displays.layout == .separate {
            for (index, output) in displays.outputs.enumerated() {
                let count = ConfigReading.entries(of: config.separateScreen(index), logger: logger).count
                summary += "; screen \(output.name): \(count) \(count == 1 ? "entry" : "entries")"
            }
        }
        if !triggers.isEmpty { summary += "; \(triggers.triggers.count) trigger\(triggers.triggers.count == 1 ? "" : "s")" }
        if !overrides.isEmpty { summary += "; \(overrides.overrides.count) override\(overrides.overrides.count == 1 ? "" : "s")" }
        if let cap = config.alerts { summary += "; CAP alerts from \(NetworkURL.masked(cap.url))" }
        print(summary)
    }
}
