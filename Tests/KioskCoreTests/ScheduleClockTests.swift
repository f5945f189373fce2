import Foundation
import KioskCore
import Testing

/// An instant given as a UTC date and time.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
    let date = LocalDate(year: year, month: month, day: day)!
    return Date(timeIntervalSince1970: Double(date.dayNumber * 86_400 + hour * 3600 + minute * 60))
}

func day(_ text: String) -> LocalDate { LocalDate(parsing: text)! }
func wall(_ text: String) -> WallTime { WallTime(parsing: text)! }
func zone(_ name: String) -> ZoneClock { ZoneClock(named: name)! }

/// The calendar arithmetic and the rule for what a wall-clock time means (the expected instants
/// were read from Python's zoneinfo over the same tz database, 2026 transitions).
@Suite struct ScheduleClockTests {
    @Test func datesCountDaysAndKnowTheirWeekday() {
        #expect(LocalDate(dayNumber: 0) == day("1970-01-01"))
        #expect(day("1970-01-01").weekday == .thursday)
        #expect(day("2026-11-23").weekday == .monday)
        #expect(day("2000-02-29").adding(days: 1) == day("2000-03-01"))
        #expect(day("2024-12-31").adding(days: 1) == day("2025-01-01"))
        #expect(day("1969-12-31").dayNumber == -1)
        for number in stride(from: -800_000, through: 800_000, by: 997) {
            #expect(LocalDate(dayNumber: number).dayNumber == number)
        }
        #expect(LocalDate(parsing: "2026-02-29") == nil)
        #expect(LocalDate(parsing: "2028-02-29") != nil)
        #expect(LocalDate(parsing: "1900-02-29") == nil)
        #expect(LocalDate(parsing: "2026-13-01") == nil)
        #expect(LocalDate(parsing: "26-01-01") == nil)
    }

    @Test func wallTimesAndDaysParseAsOperatorsWriteThem() {
        #expect(WallTime(parsing: "7:05")?.minutes == 425)
        #expect(WallTime(parsing: "24:00") == .endOfDay)
        #expect(WallTime(parsing: "24:01") == nil)
        #expect(WallTime(parsing: "12:60") == nil)
        #expect(WallTime(parsing: "noon") == nil)
        #expect(WallTime(parsing: "1:2") == nil)
        #expect(wall("07:00").description == "07:00")
        #expect(Weekday(parsing: "Mon") == .monday)
        #expect(Weekday(parsing: "sunday") == .sunday)
        #expect(Weekday(parsing: "mo") == nil)
        #expect(Weekday.days(named: "weekdays")?.count == 5)
        #expect(Weekday.days(named: "weekend") == [.saturday, .sunday])
    }

    @Test func anOrdinaryTimeIsTheInstantTheClockShowsIt() {
        #expect(zone("Europe/Berlin").instant(day("2026-07-01"), wall("12:00")) == utc(2026, 7, 1, 10))
        #expect(zone("America/New_York").instant(day("2026-01-15"), wall("00:00")) == utc(2026, 1, 15, 5))
        #expect(zone("Pacific/Chatham").instant(day("2026-06-01"), wall("12:45")) == utc(2026, 6, 1, 0))
        #expect(zone("UTC").instant(day("2026-06-01"), wall("24:00")) == utc(2026, 6, 2, 0))
    }

    /// A time the clock skips means the end of the gap.
    @Test func aSkippedTimeMeansTheEndOfTheGap() {
        let berlin = zone("Europe/Berlin")
        #expect(berlin.instant(day("2026-03-29"), wall("01:59")) == utc(2026, 3, 29, 0, 59))
        #expect(berlin.instant(day("2026-03-29"), wall("02:00")) == utc(2026, 3, 29, 1))
        #expect(berlin.instant(day("2026-03-29"), wall("02:30")) == utc(2026, 3, 29, 1))
        #expect(berlin.instant(day("2026-03-29"), wall("03:00")) == utc(2026, 3, 29, 1))
        #expect(berlin.instant(day("2026-03-29"), wall("03:01")) == utc(2026, 3, 29, 1, 1))
        #expect(zone("America/New_York").instant(day("2026-03-08"), wall("02:30")) == utc(2026, 3, 8, 7))
        // Lord Howe moves by 30 minutes; Santiago and Cairo at midnight.
        #expect(zone("Australia/Lord_Howe").instant(day("2026-10-04"), wall("02:15")) == utc(2026, 10, 3, 15, 30))
        #expect(zone("America/Santiago").instant(day("2026-09-06"), wall("00:00")) == utc(2026, 9, 6, 4))
        #expect(zone("Africa/Cairo").instant(day("2026-04-24"), wall("00:30")) == utc(2026, 4, 23, 22))
        #expect(zone("Pacific/Chatham").instant(day("2026-09-27"), wall("03:00")) == utc(2026, 9, 26, 14))
    }

    /// A time the clock shows twice means the first time.
    @Test func aRepeatedTimeMeansItsFirstOccurrence() {
        #expect(zone("Europe/Berlin").instant(day("2026-10-25"), wall("02:30")) == utc(2026, 10, 25, 0, 30))
        #expect(zone("Europe/Berlin").instant(day("2026-10-25"), wall("03:00")) == utc(2026, 10, 25, 2))
        #expect(zone("America/New_York").instant(day("2026-11-01"), wall("01:30")) == utc(2026, 11, 1, 5, 30))
        #expect(zone("America/Santiago").instant(day("2026-04-04"), wall("23:30")) == utc(2026, 4, 5, 2, 30))
        #expect(zone("America/Santiago").instant(day("2026-04-05"), wall("00:00")) == utc(2026, 4, 5, 4))
    }

    /// Times never run backwards: a later wall time of the same day is never an earlier instant.
    @Test func laterTimesAreNeverEarlierInstants() {
        for name in ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Africa/Cairo"] {
            let clock = zone(name)
            for date in [day("2026-03-08"), day("2026-03-29"), day("2026-04-05"), day("2026-04-24"),
                         day("2026-09-06"), day("2026-10-04"), day("2026-10-25"), day("2026-11-01")] {
                var previous = clock.instant(date, .midnight)
                for minutes in stride(from: 5, through: 1440, by: 5) {
                    let next = clock.instant(date, WallTime(hour: minutes / 60, minute: minutes % 60)!)
                    #expect(next >= previous, "\(name) \(date) \(minutes) min")
                    previous = next
                }
            }
        }
    }

    @Test func instantsReadBackAsLocalDatesAndOffsets() {
        let berlin = zone("Europe/Berlin")
        #expect(berlin.localDate(of: utc(2026, 3, 28, 23, 30)) == day("2026-03-29"))
        #expect(berlin.describe(utc(2026, 3, 29, 1)) == "2026-03-29 03:00 +02:00")
        #expect(zone("America/St_Johns").describe(utc(2026, 1, 10, 12)) == "2026-01-10 08:30 -03:30")
        #expect(ZoneClock(named: "Mars/Olympus") == nil)
    }
}
