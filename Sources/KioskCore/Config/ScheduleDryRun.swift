import Foundation

/// `kiosk schedule`'s answer, a public contract for operators and scripts: what plays at one
/// instant (playlist, entry, display power) and, over a span, every change and every timed
/// insert, each with its local time and UTC offset. Pure: the command only prints `text` or
/// `json`.
///
/// JSON (one line; keys in this order, times ISO 8601 with the zone's offset at that instant):
///
///     {"at": "2026-10-22T12:00:00+02:00", "timezone": "Europe/Berlin",
///      "state": {"playlist": "lunch", "entry": "lunch", "display_power": "on"},
///      "changes": [{"at": "...", "utc_offset": "+02:00", "playlist": "default",
///                   "entry": null, "display_power": "on"}, ...],
///      "inserts": [{"at": "...", "utc_offset": "+02:00", "name": "noon news",
///                   "item": "/srv/kiosk/clips/noon.mp4", "playlist": null}, ...]}
///
/// `entry` is the entry's name, null outside every entry (the default playlist plays);
/// `display_power` is "on" or "off"; an insert has `item` or `playlist`, the other null.
/// `changes` and `inserts` cover the span after `at` (`--for`); without one they are empty.
public struct ScheduleDryRun: Sendable {
    /// A timed insert due at an instant.
    public struct DueInsert: Sendable, Equatable {
        public var at: Date
        public var insert: TimedInsert
    }

    public let rules: Schedule
    public let clock: ZoneClock
    public let zoneName: String
    public let at: Date
    /// The end of the span; nil without one.
    public let end: Date?
    public let state: ScheduleState
    /// The changes in (`at`, `end`].
    public let changes: [ScheduleChange]
    /// The inserts due in (`at`, `end`].
    public let inserts: [DueInsert]
    /// Without a span: the first change after `at` within 400 days, for the text.
    public let nextChange: ScheduleChange?

    public init(rules: Schedule, clock: ZoneClock, zoneName: String, at: Date, span: Double?) {
        self.rules = rules
        self.clock = clock
        self.zoneName = zoneName
        self.at = at
        let evaluator = ScheduleEvaluator(schedule: rules, clock: clock)
        state = evaluator.state(at: at)
        if let span {
            let end = at.addingTimeInterval(span)
            self.end = end
            changes = evaluator.changes(from: at, through: end)
            inserts = evaluator.inserts(after: at, through: end).map { DueInsert(at: $0.at, insert: $0.insert) }
            nextChange = nil
        } else {
            end = nil
            changes = []
            inserts = []
            nextChange = evaluator.nextChange(after: at)
        }
    }

    /// The schedule of a loaded kiosk.conf, on its zone's clock.
    public init(config: KioskConfig, at: Date, span: Double?) {
        self.init(rules: config.scheduleRules, clock: config.scheduleClock, zoneName: config.scheduleZoneName,
                  at: at, span: span)
    }

    /// The winning entry's name; nil outside every entry.
    public func entryName(of state: ScheduleState) -> String? {
        state.entry.map { rules.entries[$0].name }
    }

    // MARK: Text

    /// For people: the state at `at`, then the changes and inserts of the span (or the next
    /// change), one per line, each with its local time, UTC offset and weekday.
    public var text: String {
        var lines = ["timezone \(zoneName)",
                     "at \(ScheduleTimeText.readable(at, clock: clock)) \(weekday(at)): \(describe(state))"]
        if let end {
            lines.append("changes until \(ScheduleTimeText.readable(end, clock: clock)):")
            lines += changes.map { "  \(moment($0.at))  \(describe($0.state))" }
            if changes.isEmpty { lines.append("  none") }
            lines.append("inserts until \(ScheduleTimeText.readable(end, clock: clock)):")
            lines += inserts.map { "  \(moment($0.at))  \(describe($0.insert))" }
            if inserts.isEmpty { lines.append("  none") }
        } else if let nextChange {
            lines.append("next change: \(moment(nextChange.at))  \(describe(nextChange.state))")
        } else {
            lines.append("next change: none within 400 days")
        }
        return lines.joined(separator: "\n")
    }

    /// "2026-10-25 03:00 +01:00 sun".
    private func moment(_ instant: Date) -> String {
        "\(clock.describe(instant)) \(weekday(instant).prefix(3))"
    }

    private func weekday(_ instant: Date) -> String { clock.localDate(of: instant).weekday.description }

    /// "playlist lunch, entry 'lunch', display on"; outside every entry "entry default".
    private func describe(_ state: ScheduleState) -> String {
        let entry = entryName(of: state).map { "entry '\($0)'" } ?? "entry default"
        return "playlist \(state.playlist), \(entry), display \(state.powerOn ? "on" : "off")"
    }

    /// "insert 'noon news': item /srv/kiosk/clips/noon.mp4".
    private func describe(_ insert: TimedInsert) -> String {
        switch insert.content {
        case .item(let item): "insert '\(insert.name)': item \(item)"
        case .playlist(let playlist): "insert '\(insert.name)': playlist \(playlist)"
        }
    }

    // MARK: JSON

    public var json: ControlValue {
        .object([
            ("at", .string(ScheduleTimeText.iso8601(at, clock: clock))),
            ("timezone", .string(zoneName)),
            ("state", stateObject(state)),
            ("changes", .array(changes.map { change in
                timed(change.at, stateObject(change.state))
            })),
            ("inserts", .array(inserts.map { due in
                var item = ControlValue.null, playlist = ControlValue.null
                switch due.insert.content {
                case .item(let path): item = .string(path)
                case .playlist(let name): playlist = .string(name)
                }
                return timed(due.at, .object([("name", .string(due.insert.name)), ("item", item), ("playlist", playlist)]))
            })),
        ])
    }

    func stateObject(_ state: ScheduleState) -> ControlValue {
        .object([("playlist", .string(state.playlist)),
                 ("entry", entryName(of: state).map(ControlValue.string) ?? .null),
                 ("display_power", .string(state.powerOn ? "on" : "off"))])
    }

    /// `members` after "at" and "utc_offset".
    func timed(_ instant: Date, _ members: ControlValue) -> ControlValue {
        guard case .object(let fields) = members else { return members }
        return .object([("at", .string(ScheduleTimeText.iso8601(instant, clock: clock))),
                        ("utc_offset", .string(ZoneClock.describeOffset(clock.offset(at: instant))))] + fields)
    }
}

extension ScheduleDryRun {
    /// The control socket's `schedule` property: the moment, the zone, what the schedule chose
    /// (`state`, as `kiosk schedule --json` prints it), the power mode the socket set and the
    /// screen's power that follows, and the next change (null within 400 days):
    ///
    ///     {"at": "...", "timezone": "Europe/Berlin",
    ///      "state": {"playlist": "lunch", "entry": "lunch", "display_power": "on"},
    ///      "display_power_mode": "auto", "display_power": "on",
    ///      "next_change": {"at": "...", "utc_offset": "+01:00", "playlist": "default",
    ///                      "entry": null, "display_power": "off"}}
    public func status(powerMode: DisplayPowerMode) -> ControlValue {
        .object([
            ("at", .string(ScheduleTimeText.iso8601(at, clock: clock))),
            ("timezone", .string(zoneName)),
            ("state", stateObject(state)),
            ("display_power_mode", .string(powerMode.rawValue)),
            ("display_power", .string(powerMode.powerOn(scheduled: state.powerOn) ? "on" : "off")),
            ("next_change", nextChange.map { timed($0.at, stateObject($0.state)) } ?? .null),
        ])
    }
}
