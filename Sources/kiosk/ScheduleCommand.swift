import ArgumentParser
import Foundation
import KioskCore
import KioskService

/// `kiosk schedule`: a dry run of kiosk.conf's schedule for operators and scripts (the output
/// is a public contract: `ScheduleDryRun` documents the JSON).
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Show what the schedule plays at a moment and, with --for, every change and insert after it.",
        discussion: """
            Times are the schedule's (schedule.timezone, else the box's zone). Exit 2 when the
            configuration has errors or --at/--for cannot be read.
            """)

    @Option(help: "The configuration file.")
    var config: String = "/etc/kiosk/kiosk.conf"

    @Option(help: "The moment, ISO 8601: 2026-10-22T12:00:00+02:00, 2026-10-22T10:00Z, or without an offset in the schedule's zone (2026-10-22 12:00). Default: now.")
    var at: String?

    @Option(name: .customLong("for"), help: "Also list every change and insert in this span after --at: 7d, 36h, 90m, 45s, 1d12h (at most 400d).")
    var span: String?

    @Flag(help: "Print one JSON object (documented in the README) instead of text.")
    var json = false

    func run() throws {
        let loaded = try ConfigReading.load(config)
        let clock = loaded.scheduleClock
        // Foundation reads an unknown TZ as UTC without a word; the schedule's times would be off by the zone's offset.
        if loaded.schedule.timezone == nil,
           let warning = ZoneClock.unknownTZWarning(ProcessInfo.processInfo.environment["TZ"], readAs: clock.zone) {
            writeStandardError("kiosk schedule: \(warning)")
        }
        var instant = Date()
        if let at {
            guard let parsed = ScheduleTimeText.parseInstant(at, clock: clock) else {
                if let missing = ScheduleTimeText.missingDay(in: at) {
                    throw ConfigFailure(text: "kiosk schedule: --at '\(at)' names a day that does not exist: \(missing)")
                }
                throw ConfigFailure(text: "kiosk schedule: --at '\(at)' is not an ISO 8601 time; expected like "
                                    + "2026-10-22T12:00:00+02:00, 2026-10-22T10:00Z or 2026-10-22 12:00 (the schedule's zone)")
            }
            instant = parsed
        }
        var seconds: Double?
        if let span {
            guard let parsed = ScheduleTimeText.parseDuration(span) else {
                throw ConfigFailure(text: "kiosk schedule: --for '\(span)' is not a span; expected a number with s, m, h "
                                    + "or d, like 7d, 36h or 1d12h, more than 0 and at most 400d")
            }
            seconds = parsed
        }
        let dryRun = ScheduleDryRun(config: loaded, at: instant, span: seconds)
        print(json ? dryRun.json.json : dryRun.text)
    }
}
