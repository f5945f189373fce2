import Foundation

/// What the schedule says at one instant.
public struct ScheduleState: Sendable, Equatable {
    /// The index of the winning `ScheduleEntry`; nil outside every entry.
    public var entry: Int?
    public var playlist: String
    public var powerOn: Bool

    public init(entry: Int?, playlist: String, powerOn: Bool) {
        self.entry = entry
        self.playlist = playlist
        self.powerOn = powerOn
    }
}

/// A moment the schedule's state changes, and the state from then on.
public struct ScheduleChange: Sendable, Equatable {
    public var at: Date
    public var state: ScheduleState

    public init(at: Date, state: ScheduleState) {
        self.at = at
        self.state = state
    }
}

/// Answers "what plays now, and when does that change" from a `Schedule` and a `ZoneClock`.
/// Pure and stateless: whatever the wall clock did (a jump by years, an operator setting the
/// date, a DST change), the answer for an instant depends on that instant alone, so the caller
/// asks again whenever it looks at the clock and never waits on a stale interval.
public struct ScheduleEvaluator: Sendable {
    public let schedule: Schedule
    public let clock: ZoneClock

    public init(schedule: Schedule, clock: ZoneClock) {
        self.schedule = schedule
        self.clock = clock
    }

    /// An occurrence starts on its date and lasts at most a day and an hour or two, so the ones
    /// that may contain `instant` start on its local date or the two before.
    private func occurrences(of window: ScheduleWindow, around instant: Date) -> [Range<Date>] {
        let today = clock.localDate(of: instant)
        return (-2...0).compactMap { window.occurrence(on: today.adding(days: $0), clock: clock) }
    }

    private func covers(_ window: ScheduleWindow, _ instant: Date) -> Bool {
        occurrences(of: window, around: instant).contains { $0.contains(instant) }
    }

    /// The entry that wins at `instant`: the highest priority, then the one listed first.
    public func activeEntry(at instant: Date) -> Int? {
        var best: Int?
        for (index, entry) in schedule.entries.enumerated() where covers(entry.window, instant) {
            if let current = best, schedule.entries[current].priority >= entry.priority { continue }
            best = index
        }
        return best
    }

    /// Whether the screen is on at `instant`: inside a power window, or always without one.
    public func powerOn(at instant: Date) -> Bool {
        schedule.powerWindows.isEmpty || schedule.powerWindows.contains { covers($0, instant) }
    }

    public func state(at instant: Date) -> ScheduleState {
        let entry = activeEntry(at: instant)
        return ScheduleState(entry: entry, playlist: entry.map { schedule.entries[$0].playlist } ?? schedule.defaultPlaylist,
                             powerOn: powerOn(at: instant))
    }

    /// Instants in (`after`, ...) where some window starts or ends, for occurrences starting on
    /// local dates `dates`, sorted.
    private func boundaries(after instant: Date, dates: ClosedRange<Int>) -> [Date] {
        let windows = schedule.entries.map(\.window) + schedule.powerWindows
        var found = Set<Date>()
        for day in dates {
            let date = LocalDate(dayNumber: day)
            for window in windows {
                guard let occurrence = window.occurrence(on: date, clock: clock) else { continue }
                if occurrence.lowerBound > instant { found.insert(occurrence.lowerBound) }
                if occurrence.upperBound > instant { found.insert(occurrence.upperBound) }
            }
        }
        return found.sorted()
    }

    /// The first change after `instant` within `days` days; nil when the state holds that long
    /// (or for good).
    public func nextChange(after instant: Date, withinDays days: Int = 400) -> ScheduleChange? {
        let current = state(at: instant)
        let today = clock.localDate(of: instant).dayNumber
        // A week at a time: most changes are within a day, a campaign may be months away.
        var first = today - 2
        while first <= today + days {
            let last = Swift.min(first + 6, today + days)
            for boundary in boundaries(after: instant, dates: first...last) {
                let next = state(at: boundary)
                if next != current { return ScheduleChange(at: boundary, state: next) }
            }
            first = last + 1
        }
        return nil
    }

    /// Every change in (`start`, `end`], in order (at most `limit`).
    public func changes(from start: Date, through end: Date, limit: Int = 10_000) -> [ScheduleChange] {
        var found: [ScheduleChange] = []
        var cursor = start
        let days = Int(((end.timeIntervalSince(start)) / 86_400).rounded(.up)) + 2
        while found.count < limit, let change = nextChange(after: cursor, withinDays: days), change.at <= end {
            found.append(change)
            cursor = change.at
        }
        return found
    }

    /// The inserts due in (`start`, `end`], in order, with their instants.
    public func inserts(after start: Date, through end: Date) -> [(at: Date, insert: TimedInsert)] {
        guard end > start else { return [] }
        let first = clock.localDate(of: start).dayNumber - 1
        let last = clock.localDate(of: end).dayNumber + 1
        var due: [(at: Date, insert: TimedInsert)] = []
        for day in first...last {
            for insert in schedule.inserts {
                if let at = insert.due(on: LocalDate(dayNumber: day), clock: clock), at > start, at <= end {
                    due.append((at, insert))
                }
            }
        }
        return due.sorted { $0.at < $1.at }
    }

    /// The next insert after `instant` within `days` days.
    public func nextInsert(after instant: Date, withinDays days: Int = 400) -> (at: Date, insert: TimedInsert)? {
        guard !schedule.inserts.isEmpty else { return nil }
        var start = instant
        for _ in 0..<((days + 6) / 7) {
            let end = start.addingTimeInterval(7 * 86_400)
            if let first = inserts(after: start, through: end).first { return first }
            start = end
        }
        return nil
    }
}
