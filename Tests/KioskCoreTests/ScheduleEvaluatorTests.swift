import Foundation
import KioskCore
import Testing

/// Which playlist plays when, across weekdays, midnight, campaigns, overlaps and DST; inserts;
/// and the ticker's rules for clocks that jump.
@Suite struct ScheduleEvaluatorTests {
    static let berlin = zone("Europe/Berlin")

    static func entry(_ name: String, _ playlist: String, days: Set<Weekday> = Weekday.every, _ start: String, _ end: String,
                      from: String? = nil, to: String? = nil, priority: Int = 0) -> ScheduleEntry {
        ScheduleEntry(name: name, playlist: playlist,
                      window: ScheduleWindow(days: days, start: wall(start), end: wall(end),
                                             firstDate: from.map(day), lastDate: to.map(day)),
                      priority: priority)
    }

    static func evaluator(_ entries: [ScheduleEntry], inserts: [TimedInsert] = [], power: [ScheduleWindow] = [],
                          clock: ZoneClock = berlin) -> ScheduleEvaluator {
        ScheduleEvaluator(schedule: Schedule(entries: entries, defaultPlaylist: "default", inserts: inserts, powerWindows: power),
                          clock: clock)
    }

    /// Berlin local time on a date (CET in winter, +1 h).
    static func winter(_ date: String, _ hour: Int, _ minute: Int = 0) -> Date {
        berlin.instant(day(date), WallTime(hour: hour, minute: minute)!)
    }

    @Test func weekdayWindowsAndTheDefaultOutsideThem() {
        let schedule = Self.evaluator([Self.entry("morning", "morning", days: Weekday.weekdays, "07:00", "11:00")])
        // 2026-11-23 is a Monday, 2026-11-28 a Saturday.
        #expect(schedule.state(at: Self.winter("2026-11-23", 6, 59)).playlist == "default")
        #expect(schedule.state(at: Self.winter("2026-11-23", 7)).playlist == "morning")
        #expect(schedule.state(at: Self.winter("2026-11-23", 7)).entry == 0)
        #expect(schedule.state(at: Self.winter("2026-11-23", 10, 59)).playlist == "morning")
        #expect(schedule.state(at: Self.winter("2026-11-23", 11)).playlist == "default")
        #expect(schedule.state(at: Self.winter("2026-11-28", 8)).playlist == "default")
    }

    /// An occurrence belongs to the date it starts on and runs to its end.
    @Test func aWindowPastMidnightBelongsToItsStartDate() {
        let schedule = Self.evaluator([Self.entry("late", "night", days: [.friday], "22:00", "06:00")])
        #expect(schedule.state(at: Self.winter("2026-11-27", 21, 59)).playlist == "default")
        #expect(schedule.state(at: Self.winter("2026-11-27", 23)).playlist == "night")
        #expect(schedule.state(at: Self.winter("2026-11-28", 5, 59)).playlist == "night")   // Saturday morning
        #expect(schedule.state(at: Self.winter("2026-11-28", 6)).playlist == "default")
        #expect(schedule.state(at: Self.winter("2026-11-28", 23)).playlist == "default")    // Saturday night: not Friday
        let allDay = Self.evaluator([Self.entry("day", "all", "00:00", "24:00")])
        #expect(allDay.state(at: Self.winter("2026-11-28", 23, 59)).playlist == "all")
        #expect(allDay.nextChange(after: Self.winter("2026-11-28", 12)) == nil)
    }

    @Test func aCampaignRunsFromItsFirstDateThroughItsLast() {
        let schedule = Self.evaluator([Self.entry("xmas", "xmas", "18:00", "02:00", from: "2026-12-01", to: "2026-12-24")])
        #expect(schedule.state(at: Self.winter("2026-11-30", 19)).playlist == "default")
        #expect(schedule.state(at: Self.winter("2026-12-01", 18)).playlist == "xmas")
        #expect(schedule.state(at: Self.winter("2026-12-01", 17, 59)).playlist == "default")
        // The last date's occurrence runs into the 25th.
        #expect(schedule.state(at: Self.winter("2026-12-25", 1, 30)).playlist == "xmas")
        #expect(schedule.state(at: Self.winter("2026-12-25", 19)).playlist == "default")
        let change = schedule.nextChange(after: Self.winter("2026-11-23", 12))
        #expect(change?.at == Self.winter("2026-12-01", 18))
        #expect(change?.state.playlist == "xmas")
    }

    @Test func overlapsGoToTheHigherPriorityThenTheFirstListed() {
        let entries = [Self.entry("base", "base", "08:00", "20:00"),
                       Self.entry("lunch", "lunch", "12:00", "14:00", priority: 5),
                       Self.entry("also-lunch", "other", "12:00", "14:00", priority: 5),
                       Self.entry("low", "low", "11:00", "15:00", priority: -1)]
        let schedule = Self.evaluator(entries)
        #expect(schedule.state(at: Self.winter("2026-11-23", 11, 30)).playlist == "base")
        #expect(schedule.state(at: Self.winter("2026-11-23", 12, 30)).playlist == "lunch")
        #expect(schedule.state(at: Self.winter("2026-11-23", 12, 30)).entry == 1)
        #expect(schedule.state(at: Self.winter("2026-11-23", 20, 30)).playlist == "default")
        let changes = schedule.changes(from: Self.winter("2026-11-23", 0), through: Self.winter("2026-11-24", 0))
        #expect(changes.map(\.state.playlist) == ["base", "lunch", "base", "default"])
        #expect(changes.map(\.at) == [8, 12, 14, 20].map { Self.winter("2026-11-23", $0) })
    }

    /// Back-to-back windows stay back-to-back across the spring gap; a window wholly inside it
    /// does not run that day; on the autumn night the repeated hour runs once.
    @Test func daylightSavingChangesKeepWindowsInOrder() {
        let schedule = Self.evaluator([Self.entry("early", "early", "00:00", "02:30"),
                                       Self.entry("dawn", "dawn", "02:30", "06:00"),
                                       Self.entry("gap", "gap", "02:10", "02:50", priority: 9)])
        let spring = schedule.changes(from: utc(2026, 3, 28, 12), through: utc(2026, 3, 29, 12))
        #expect(spring.map(\.state.playlist) == ["early", "dawn", "default"])
        #expect(spring.map(\.at) == [utc(2026, 3, 28, 23), utc(2026, 3, 29, 1), utc(2026, 3, 29, 4)])
        let autumn = schedule.changes(from: utc(2026, 10, 24, 12), through: utc(2026, 10, 25, 12))
        #expect(autumn.map(\.state.playlist) == ["early", "gap", "dawn", "default"])
        // 02:10 and 02:50 at their first occurrence (+02:00); dawn ends at 06:00 CET.
        #expect(autumn.map(\.at) == [utc(2026, 10, 24, 22), utc(2026, 10, 25, 0, 10), utc(2026, 10, 25, 0, 50),
                                     utc(2026, 10, 25, 5)])
        let newYork = Self.evaluator([Self.entry("night", "night", "01:00", "02:00")], clock: zone("America/New_York"))
        // 01:00 at its first occurrence (EDT); the clock first reads 02:00 after the repeated
        // hour (EST): the window holds both one-o'clock hours, two real hours.
        let fallBack = newYork.changes(from: utc(2026, 11, 1, 0), through: utc(2026, 11, 1, 12))
        #expect(fallBack.map(\.at) == [utc(2026, 11, 1, 5), utc(2026, 11, 1, 7)])
    }

    @Test func theScreenIsOnInsideItsPowerWindowsOnly() {
        let power = [ScheduleWindow(days: Weekday.weekdays, start: wall("07:00"), end: wall("22:00"))]
        let schedule = Self.evaluator([], power: power)
        #expect(schedule.powerOn(at: Self.winter("2026-11-23", 12)))
        #expect(!schedule.powerOn(at: Self.winter("2026-11-23", 22)))
        #expect(!schedule.powerOn(at: Self.winter("2026-11-28", 12)))
        #expect(Self.evaluator([]).powerOn(at: Self.winter("2026-11-28", 3)))
        let week = schedule.changes(from: Self.winter("2026-11-23", 0), through: Self.winter("2026-11-30", 0))
        #expect(week.count == 10)
        #expect(week.first == ScheduleChange(at: Self.winter("2026-11-23", 7), state: ScheduleState(entry: nil, playlist: "default", powerOn: true)))
    }

    /// Due once per selected date: once on a fall-back night, at the end of the gap in spring.
    @Test func insertsAreDueOncePerDate() {
        let insert = TimedInsert(name: "news", at: wall("02:30"), content: .item("news.mp4"))
        let schedule = Self.evaluator([], inserts: [insert])
        #expect(schedule.inserts(after: utc(2026, 3, 28, 12), through: utc(2026, 3, 29, 12)).map(\.at) == [utc(2026, 3, 29, 1)])
        #expect(schedule.inserts(after: utc(2026, 10, 24, 12), through: utc(2026, 10, 25, 12)).map(\.at) == [utc(2026, 10, 25, 0, 30)])
        #expect(schedule.inserts(after: utc(2026, 11, 1, 0), through: utc(2026, 11, 8, 0)).count == 7)
        #expect(schedule.nextInsert(after: utc(2026, 11, 23, 2))?.at == Self.winter("2026-11-24", 2, 30))
        let weekdays = TimedInsert(name: "noon", at: wall("12:00"), days: Weekday.weekdays, content: .playlist("promo"))
        #expect(Self.evaluator([], inserts: [weekdays]).nextInsert(after: Self.winter("2026-11-27", 12))?.at
                == Self.winter("2026-11-30", 12))
    }
}
