import Yams

/// The values that say when something applies, shared by schedule entries, inserts and
/// `display.power`: `days`, `from`, `to`, `at` and `dates: {from, to}`. Each reader reports
/// a bad value at its own line:column and returns nil for it.
extension ConfigWalker {
    /// The keys of a window; entries and inserts add their own.
    static let windowKeys = ["days", "from", "to", "dates"]

    static let expectedDays = "expected weekdays, weekend, daily, or days mon..sun as a list ([mon, wed]), "
        + "separated by commas (mon, wed) or as a range (mon-fri)"

    /// Words `days` accepts, for suggestions.
    private static let dayWords = ["weekdays", "weekend", "daily"] + Weekday.allCases.flatMap {
        [$0.description, String($0.description.prefix(3))]
    }

    /// `days`, `from`, `to` and `dates` of `section`: every day, all day and every date when
    /// left out. nil when any of them is invalid (each is reported).
    func window(_ section: SectionMap) -> ScheduleWindow? {
        let before = diagnostics.count
        var window = ScheduleWindow()
        if let days = weekdays(section, "days") { window.days = days }
        if let start = wallTime(section, "from", allowingEndOfDay: false) { window.start = start }
        if let end = wallTime(section, "to", allowingEndOfDay: true) { window.end = end }
        (window.firstDate, window.lastDate) = dateRange(section)
        // Legal (a day-long window starting at that time) but almost always a slip of the
        // hand, and silent: the window simply never ends.
        if section["from"] != nil, section["to"] != nil, diagnostics.count == before, window.start == window.end {
            warn(section["to"], "'from' and 'to' in \(section.name) are both \(window.start), so the window lasts "
                 + "24 hours (\(window.start) to \(window.start) the next day); leave both out for whole days, or "
                 + "correct one if a shorter window was meant")
        }
        return diagnostics.count == before ? window : nil
    }

    /// `days`: "weekdays", "weekend", "daily", a day ("mon", "Monday"), a range ("mon-fri",
    /// "fri-mon" wraps past Sunday), a list of those or the same separated by commas.
    func weekdays(_ section: SectionMap, _ key: String) -> Set<Weekday>? {
        guard let node = section[key] else { return nil }
        var words: [(text: String, node: Node)] = []
        switch node {
        case .scalar where !isNull(node):
            words = Self.commaSeparated(node.scalar?.string ?? "").map { ($0, node) }
        case .sequence(let sequence) where !sequence.isEmpty:
            for element in sequence {
                guard let text = element.scalar?.string, !isNull(element) else {
                    report(element, "an entry of '\(key)' in \(section.name) is \(describe(element)); \(Self.expectedDays)")
                    continue
                }
                words += Self.commaSeparated(text).map { ($0, element) }
            }
        default:
            report(node, "'\(key)' in \(section.name) is \(describe(node)); \(Self.expectedDays)")
            return nil
        }
        let before = diagnostics.count
        var days = Set<Weekday>()
        for word in words {
            if let named = Self.days(named: word.text) {
                days.formUnion(named)
            } else {
                report(word.node, "'\(word.text)' in '\(key)' of \(section.name) is not a day; \(Self.expectedDays)"
                       + suggestion(for: word.text, among: Self.dayWords))
            }
        }
        return diagnostics.count == before ? days : nil
    }

    private static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A word of `days`, or a range of two days ("mon-fri"); nil for anything else.
    static func days(named text: String) -> Set<Weekday>? {
        if let days = Weekday.days(named: text) { return days }
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = Weekday(parsing: ends[0].trimmingCharacters(in: .whitespaces)),
              let last = Weekday(parsing: ends[1].trimmingCharacters(in: .whitespaces)) else { return nil }
        let count = (last.rawValue - first.rawValue + 7) % 7 + 1
        return Set((0..<count).map { Weekday(rawValue: (first.rawValue - 1 + $0) % 7 + 1)! })
    }

    /// A time of day, "07:30"; "24:00" (the end of the day) only where a window ends. Quoted or
    /// not: YAML reads a plain 7:30 as a number in base 60, its text is what counts here.
    func wallTime(_ section: SectionMap, _ key: String, allowingEndOfDay: Bool) -> WallTime? {
        guard let node = section[key] else { return nil }
        guard let text = node.scalar?.string, !isNull(node), let time = WallTime(parsing: text),
              allowingEndOfDay || time < .endOfDay else {
            let range = allowingEndOfDay ? "00:00 to 24:00" : "00:00 to 23:59"
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected a time of day HH:MM from \(range), like \"07:30\"")
            return nil
        }
        return time
    }

    /// `dates: {from: 2026-12-01, to: 2026-12-24}`: a campaign, both dates included; either
    /// may be left out (from a date on, or until a date).
    func dateRange(_ section: SectionMap) -> (first: LocalDate?, last: LocalDate?) {
        let name = "dates of \(section.name)"
        guard let dates = self.section(section["dates"], name: name, allowedKeys: ["from", "to"]) else { return (nil, nil) }
        if dates.node.mapping?.count == 0 {
            report(dates.node, "'dates' in \(section.name) names no date; expected from: and/or to: with dates "
                   + "like 2026-12-01 (or leave 'dates' out for every date)")
        }
        let first = date(dates, "from"), last = date(dates, "to")
        if let first, let last, last < first {
            report(dates["to"], "'to' (\(last)) in \(name) is before 'from' (\(first)); expected a last date on or "
                   + "after the first (both are included)")
            return (nil, nil)
        }
        return (first, last)
    }

    private func date(_ section: SectionMap, _ key: String) -> LocalDate? {
        guard let node = section[key] else { return nil }
        guard let text = node.scalar?.string, !isNull(node), let date = LocalDate(parsing: text) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected a date YYYY-MM-DD like 2026-12-01")
            return nil
        }
        return date
    }

    /// `display.power`: a list of windows when the screen is on (one map counts as a list of
    /// one); outside them it is off. Left out: always on.
    func powerWindows(_ node: Node?) -> [ScheduleWindow] {
        guard let node else { return [] }
        let elements: [Node]
        switch node {
        case .sequence(let sequence) where !sequence.isEmpty: elements = Array(sequence)
        case .mapping: elements = [node]
        default:
            report(node, "'power' in display is \(describe(node)); expected a list of windows when the screen is on, "
                   + "like - {days: weekdays, from: \"07:00\", to: \"22:00\"} (leave 'power' out for always on)")
            return []
        }
        var windows: [ScheduleWindow] = []
        for (index, element) in elements.enumerated() {
            let name = "display.power window \(index + 1)"
            guard let section = listedSection(element, label: name, allowedKeys: Self.windowKeys) else { continue }
            if let window = window(section) { windows.append(window) }
        }
        return windows
    }
}
