import ArgumentParser
import Glibc
import KioskCore
import KioskFetch
import KioskService

/// `kiosk sync --once | --dry-run`: one pass of content sync from the command line, with the
/// configuration's `sync:` keys (README, "Content sync").
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch kiosk.conf's sync.manifest into its store now (--once), or say what that would fetch (--dry-run).",
        discussion: """
            Exit 0 when the set is current (switched or unchanged), 1 when the pass failed (one
            line on stderr naming the URL or file and why; the current set is kept), 2 on a
            configuration with errors or sync.manifest none.
            """)

    @Option(help: "The configuration file.")
    var config: String = "/etc/kiosk/kiosk.conf"

    @Flag(help: "Fetch what is missing and switch to the new set when all of it is there.")
    var once = false

    @Flag(name: .customLong("dry-run"), help: "Only read the manifest: files and bytes to fetch, space needed.")
    var dryRun = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard once != dryRun else { throw ValidationError("give exactly one of --once and --dry-run") }
    }

    func run() throws {
        let loaded = try ConfigReading.load(config)
        let content = loaded.sync.content
        guard content.isEnabled else {
            throw ConfigFailure(text: "\(config): sync.manifest is none; expected the URL of a manifest to sync from")
        }
        let runner = ContentSyncRunner(config: content) { _, line in writeStandardError(line) }
        let started = MonotonicClock().now()
        let outcome = runner.runOnce(dryRun: dryRun)
        let seconds = MonotonicClock().now() - started
        let status = runner.statusBox.status
        var fields: [(String, ControlValue)] = []
        var text: String
        switch outcome {
        case .unchanged:
            fields = [("outcome", .string("unchanged"))]
            text = "unchanged: set \(status.currentSet ?? "none") is current"
        case .switched(let id):
            fields = [("outcome", .string("switched")), ("set", .string(id))]
            text = "switched to set \(id)"
        case .failed(let line):
            fields = [("outcome", .string("failed")), ("error", .string(line))]
            text = "failed: \(line)"
        case .planned(let plan, let free):
            let files: [ControlValue] = plan.toFetch.map { .object([("name", .string($0.name)), ("url", .string($0.url)),
                                                                   ("size", .integer($0.size))]) }
            let space = free.flatMap { plan.spaceProblem(freeBytes: $0, minFree: Int64(content.minFree)) }
            fields = [("outcome", .string("planned")), ("files_to_fetch", .array(files)),
                      ("bytes_to_fetch", .integer(plan.bytesToFetch)), ("files_present", .integer(Int64(plan.filesPresent))),
                      ("free_bytes", free.map(ControlValue.integer) ?? .null), ("min_free", .integer(Int64(content.minFree))),
                      ("space_problem", space.map(ControlValue.string) ?? .null)]
            text = "would fetch \(plan.toFetch.count) files, \(ByteCountText.text(plan.bytesToFetch)) "
                + "(\(plan.filesPresent) already there); \(free.map { ByteCountText.text($0) } ?? "unknown") free, "
                + "min_free \(ByteCountText.text(Int64(content.minFree)))" + (space.map { "; \($0)" } ?? "; it fits")
        }
        fields += [("fetched_bytes", .integer(runner.lastFetchedBytes)), ("seconds", .number((seconds * 1000).rounded() / 1000)),
                   ("status", status.value)]
        print(json ? ControlValue.object(fields).json : text)
        if case .failed = outcome { throw ExitCode(1) }
    }
}
