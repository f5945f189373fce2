import ArgumentParser
import KioskCore
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
        // Ambiguous overlaps of schedule entries are legal (the entry listed first wins) but
        // worth a look: warnings, like a compiler's, on stderr; the exit code stays 0.
        for warning in config.scheduleWarnings { writeStandardError("\(warning)") }
        var summary = "\(file): OK, \(entries.count) playlist \(entries.count == 1 ? "entry" : "entries") now"
        for playlist in config.playlists {
            let expansion = PlaylistExpander().expand(playlist.items)
            for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
            let count = expansion.entries.count
            summary += "; \(playlist.name): \(count) \(count == 1 ? "entry" : "entries")"
        }
        print(summary)
    }
}
