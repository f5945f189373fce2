import ArgumentParser
import Foundation
import KioskCore

/// `kiosk report`: what the proof-of-play file says was shown, per item and day.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Plays and seconds shown per item and day, from a proof-of-play file (logging.proof_of_play).")

    @Argument(help: "Proof-of-play files (plays.jsonl, and its rotated plays.jsonl.1 ... if wanted).")
    var files: [String]

    @Flag(help: "CSV (with a header line) instead of a table.")
    var csv = false

    func run() throws {
        var text = ""
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                writeStandardError("kiosk report: cannot read \(file)")
                throw ExitCode(1)
            }
            let report = PlayReport(text: String(decoding: data, as: UTF8.self))
            // A line cut short by a power loss, or written by hand: said, then left out.
            for bad in report.badLines { writeStandardError("\(file): \(bad); skipped") }
            text += String(decoding: data, as: UTF8.self)
            if !text.hasSuffix("\n") { text += "\n" }
        }
        // All files together, so a day that spans a rotation is one row.
        let report = PlayReport(text: text)
        print(csv ? report.csv : report.table, terminator: "")
    }
}
