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
        var failed = false
        for file in files {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                writeStandardError("kiosk report: cannot read \(file): \(Self.reason(file))")
                failed = true
                continue
            }
            let report = PlayReport(text: String(decoding: data, as: UTF8.self))
            if report.rows.isEmpty, let first = report.badLines.first {
                // Not one play record in it: another kind of file, said once, not line by line.
                writeStandardError("kiosk report: \(file) is not a proof-of-play file: no line of it is a play record "
                                   + "(\(first)); left out")
                failed = true
                continue
            }
            // A line cut short by a power loss, or written by hand: said, then left out; past
            // ten, counted (a file that is mostly something else says so in a few lines).
            for bad in report.badLines.prefix(Self.linesSaid) { writeStandardError("\(file): \(bad); skipped") }
            if report.badLines.count > Self.linesSaid {
                writeStandardError("\(file): \(report.badLines.count - Self.linesSaid) more lines that are not play records; skipped")
            }
            text += String(decoding: data, as: UTF8.self)
            if !text.hasSuffix("\n") { text += "\n" }
        }
        // All files together, so a day that spans a rotation is one row.
        let report = PlayReport(text: text)
        print(csv ? report.csv : report.table, terminator: "")
        if failed { throw ExitCode(1) }
    }

    static let linesSaid = 10

    /// Why `file` could not be read, in words.
    static func reason(_ file: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else { return "no such file" }
        if isFolder.boolValue { return "a folder, not a file" }
        return FileManager.default.isReadableFile(atPath: file) ? "a read error" : "permission denied"
    }
}
