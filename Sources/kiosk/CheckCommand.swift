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
        print("\(file): OK, \(entries.count) playlist \(entries.count == 1 ? "entry" : "entries") now")
    }
}
