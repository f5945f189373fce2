/// Two schedule entries of the same priority that can be active at the same instant: the
/// rule decides (the entry listed first wins), but an operator may not have meant it, so
/// `kiosk check` warns.
public struct ScheduleOverlap: Sendable, Equatable {
    /// The index of the entry listed first: it wins where both are active.
    public var first: Int
    public var second: Int
    /// One stretch of wall-clock time where both are active: "monday 12:00-13:00",
    /// "2026-12-07 12:00-13:00", "friday 23:00 to saturday 01:00".
    public var example: String

    public init(first: Int, second: Int, example: String) {
        self.first = first
        self.second = second
        self.example = example
    }
}

/// Finds ambiguous overlaps exactly, from the rules rather than by sampling instants: an
/// occurrence lasts at most a day, so two can only meet when they start on the same date or on
/// neighbouring ones; for each of the three offsets the times of day must intersect and some
/// date must satisfy both entries' weekdays and date ranges (over seven or more dates only the
/// weekdays matter). Wall-clock time: a window that only meets another inside a spring-forward
/// gap counts as meeting it (a harmless extra warning, once a year at most).
public enum ScheduleOverlaps {
    private static let minutesPerDay = 1440

    /// Every pair of entries with equal priority that can both be active, in list order.
    public static func ambiguous(in entries: [ScheduleEntry]) -> [ScheduleOverlap] {
        var found: [ScheduleOverlap] = []
        for first in entries.indices {
            for second in entries.indices where second > first && entries[first].priority == entries[second].priority {
                if let example = sharedStretch(entries[first].window, entries[second].window) {
                    found.append(ScheduleOverlap(first: first, second: second, example: example))
                }
            }
        }
        return found
    }

    /// A stretch of time where both windows are active, described; nil when there is none.
    public static func sharedStretch(_ a: ScheduleWindow, _ b: ScheduleWindow) -> String? {
        // b's occurrence starts `shift` days after a's.
        for shift in [0, -1, 1] {
            let aSpan = span(of: a), bSpan = span(of: b)
            let start = max(aSpan.lowerBound, bSpan.lowerBound + shift * minutesPerDay)
            let end = min(aSpan.upperBound, bSpan.upperBound + shift * minutesPerDay)
            guard start < end else { continue }
            if let day = commonStartDay(a, b, shift: shift) {
                return describe(start, end, on: day)
            }
        }
        return nil
    }

    /// Minutes from the start date's midnight: an end at or before the start is the next day's.
    private static func span(of window: ScheduleWindow) -> Range<Int> {
        let end = window.end <= window.start ? window.end.minutes + minutesPerDay : window.end.minutes
        return window.start.minutes ..< end
    }

    /// A day on which `a` starts an occurrence and `b` starts one `shift` days later: a date
    /// when the date ranges leave few, else a weekday.
    private enum StartDay {
        case date(LocalDate)
        case weekday(Weekday)
    }

    private static func commonStartDay(_ a: ScheduleWindow, _ b: ScheduleWindow, shift: Int) -> StartDay? {
        let lower = [a.firstDate?.dayNumber, b.firstDate.map { $0.dayNumber - shift }].compactMap { $0 }.max()
        let upper = [a.lastDate?.dayNumber, b.lastDate.map { $0.dayNumber - shift }].compactMap { $0 }.min()
        if let lower, let upper, lower > upper { return nil }
        let both = { (day: Int) in a.starts(on: LocalDate(dayNumber: day)) && b.starts(on: LocalDate(dayNumber: day + shift)) }
        // Within a week of a bound every weekday comes once, so looking no further is exact.
        if let lower {
            let last = min(upper ?? lower + 6, lower + 6)
            return (lower...last).first(where: both).map { .date(LocalDate(dayNumber: $0)) }
        }
        if let upper {
            return (upper - 6...upper).reversed().first(where: both).map { .date(LocalDate(dayNumber: $0)) }
        }
        return Weekday.allCases.first { day in
            a.days.contains(day) && b.days.contains(Weekday(rawValue: (day.rawValue - 1 + shift + 7) % 7 + 1)!)
        }.map(StartDay.weekday)
    }

    /// "monday 12:00-13:00" or "friday 23:00 to saturday 01:00"; minutes from `day`'s midnight.
    private static func describe(_ start: Int, _ end: Int, on day: StartDay) -> String {
        func label(_ offset: Int) -> String {
            switch day {
            case .date(let date): date.adding(days: offset).description
            case .weekday(let weekday): Weekday(rawValue: (weekday.rawValue - 1 + offset + 7) % 7 + 1)!.description
            }
        }
        func time(_ minutes: Int, offset: Int) -> WallTime {
            let local = minutes - offset * minutesPerDay
            return WallTime(hour: local / 60, minute: local % 60)!
        }
        let startOffset = start / minutesPerDay
        let endOffset = (end - 1) / minutesPerDay   // an end at midnight is that day's 24:00
        let from = time(start, offset: startOffset), to = time(end, offset: endOffset)
        if startOffset == endOffset { return "\(label(startOffset)) \(from)-\(to)" }
        return "\(label(startOffset)) \(from) to \(label(endOffset)) \(to)"
    }
}
