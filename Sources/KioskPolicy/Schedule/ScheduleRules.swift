import Foundation

/// When a rule applies: days of the week, a window of the day, and optionally a span of dates
/// (a campaign). An occurrence covers [start, end); an end at or before the start runs past
/// midnight; "24:00" ends at midnight. An occurrence belongs to the date it starts on: the
/// weekdays and the dates (both inclusive) are tested on that date, and a started occurrence
/// runs to its end.
public struct ScheduleWindow: Sendable, Equatable {
    public var days: Set<Weekday>
    public var start: WallTime
    public var end: WallTime
    public var firstDate: LocalDate?
    public var lastDate: LocalDate?

    public init(days: Set<Weekday> = Weekday.every, start: WallTime = .midnight, end: WallTime = .endOfDay,
                firstDate: LocalDate? = nil, lastDate: LocalDate? = nil) {
        self.days = days
        self.start = start
        self.end = end
        self.firstDate = firstDate
        self.lastDate = lastDate
    }

    /// Whether an occurrence starts on `date`.
    public func starts(on date: LocalDate) -> Bool {
        guard days.contains(date.weekday) else { return false }
        if let firstDate, date < firstDate { return false }
        if let lastDate, date > lastDate { return false }
        return true
    }

    /// The occurrence that starts on `date`, if any. None either when the rule skips the date,
    /// or when the whole window lies inside a gap the clock skips (it does not run that day).
    public func occurrence(on date: LocalDate, clock: ZoneClock) -> Range<Date>? {
        guard starts(on: date) else { return nil }
        let from = clock.instant(date, start)
        let to = clock.instant(end <= start ? date.adding(days: 1) : date, end)
        return from < to ? from ..< to : nil
    }

    /// "weekdays 07:00-22:00 from 2026-12-01 to 2026-12-24".
    public var description: String {
        let dayText: String
        switch days {
        case Weekday.every: dayText = "daily"
        case Weekday.weekdays: dayText = "weekdays"
        case Weekday.weekend: dayText = "weekend"
        default: dayText = days.sorted().map { String($0.description.prefix(3)) }.joined(separator: ",")
        }
        var text = "\(dayText) \(start)-\(end)"
        if let firstDate { text += " from \(firstDate)" }
        if let lastDate { text += " to \(lastDate)" }
        return text
    }
}

/// One `schedule:` entry: which playlist plays in its window. Where entries overlap, the
/// higher `priority` wins, then the entry listed first.
public struct ScheduleEntry: Sendable, Equatable {
    /// What messages call it: its `name:`, else "schedule entry N" (1-based).
    public var name: String
    public var playlist: String
    public var window: ScheduleWindow
    public var priority: Int

    public init(name: String, playlist: String, window: ScheduleWindow, priority: Int = 0) {
        self.name = name
        self.playlist = playlist
        self.window = window
        self.priority = priority
    }
}

/// What a timed insert plays once before the schedule's state resumes.
public enum InsertContent: Sendable, Equatable {
    /// An item of the playlists by its path or URL.
    case item(String)
    case playlist(String)
}

/// "At 12:00 every weekday play X once, then go back to where the loop was". Due once per
/// selected date, at the first instant the local clock reads `at` or later (so once on a
/// fall-back night, at the end of the gap on a spring night).
public struct TimedInsert: Sendable, Equatable {
    public var name: String
    public var at: WallTime
    public var days: Set<Weekday>
    public var firstDate: LocalDate?
    public var lastDate: LocalDate?
    public var content: InsertContent

    public init(name: String, at: WallTime, days: Set<Weekday> = Weekday.every,
                firstDate: LocalDate? = nil, lastDate: LocalDate? = nil, content: InsertContent) {
        self.name = name
        self.at = at
        self.days = days
        self.firstDate = firstDate
        self.lastDate = lastDate
        self.content = content
    }

    /// The instant it is due on `date`, if it is due that day.
    public func due(on date: LocalDate, clock: ZoneClock) -> Date? {
        let window = ScheduleWindow(days: days, start: at, end: at, firstDate: firstDate, lastDate: lastDate)
        return window.starts(on: date) ? clock.instant(date, at) : nil
    }
}

/// A whole `schedule:` section, as rules.
public struct Schedule: Sendable, Equatable {
    public var entries: [ScheduleEntry]
    /// Plays outside every entry (kiosk.conf's `items`, or `playlists.default`).
    public var defaultPlaylist: String
    public var inserts: [TimedInsert]
    /// When the screen is on (`display.power`); empty: always on.
    public var powerWindows: [ScheduleWindow]
    public var switchMode: ScheduleSwitch

    public init(entries: [ScheduleEntry] = [], defaultPlaylist: String = "default", inserts: [TimedInsert] = [],
                powerWindows: [ScheduleWindow] = [], switchMode: ScheduleSwitch = .atSeam) {
        self.entries = entries
        self.defaultPlaylist = defaultPlaylist
        self.inserts = inserts
        self.powerWindows = powerWindows
        self.switchMode = switchMode
    }

    public var isEmpty: Bool { entries.isEmpty && inserts.isEmpty && powerWindows.isEmpty }
}
