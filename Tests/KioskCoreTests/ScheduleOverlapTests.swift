import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `kiosk check`'s warning: entries of one priority that can be active at the same time.
@Suite struct ScheduleOverlapTests {
    static func window(_ days: Set<Weekday>, _ start: String, _ end: String, from: String? = nil, to: String? = nil) -> ScheduleWindow {
        ScheduleWindow(days: days, start: wall(start), end: wall(end), firstDate: from.map(day), lastDate: to.map(day))
    }

    @Test func overlappingTimesOnACommonDay() {
        let lunch = Self.window(Weekday.weekdays, "11:30", "14:00")
        #expect(ScheduleOverlaps.sharedStretch(lunch, Self.window([.monday], "13:00", "15:00")) == "monday 13:00-14:00")
        #expect(ScheduleOverlaps.sharedStretch(lunch, Self.window([.wednesday], "00:00", "24:00")) == "wednesday 11:30-14:00")
        // The same times on other days, and back-to-back windows, never meet.
        #expect(ScheduleOverlaps.sharedStretch(lunch, Self.window(Weekday.weekend, "11:30", "14:00")) == nil)
        #expect(ScheduleOverlaps.sharedStretch(lunch, Self.window(Weekday.every, "14:00", "18:00")) == nil)
        #expect(ScheduleOverlaps.sharedStretch(lunch, Self.window(Weekday.every, "07:00", "11:30")) == nil)
    }

    @Test func windowsPastMidnightMeetTheNextDay() {
        let friday = Self.window([.friday], "22:00", "02:00")
        #expect(ScheduleOverlaps.sharedStretch(friday, Self.window([.saturday], "01:00", "03:00")) == "saturday 01:00-02:00")
        #expect(ScheduleOverlaps.sharedStretch(Self.window([.saturday], "01:00", "03:00"), friday) == "saturday 01:00-02:00")
        #expect(ScheduleOverlaps.sharedStretch(friday, Self.window([.friday], "01:00", "03:00")) == nil)
        #expect(ScheduleOverlaps.sharedStretch(friday, Self.window([.friday], "23:00", "23:30")) == "friday 23:00-23:30")
        #expect(ScheduleOverlaps.sharedStretch(friday, Self.window([.friday], "21:00", "01:00")) == "friday 22:00 to saturday 01:00")
        #expect(ScheduleOverlaps.sharedStretch(Self.window([.sunday], "20:00", "24:00"), Self.window([.sunday], "23:00", "06:00"))
                == "sunday 23:00-24:00")
    }

    @Test func campaignsMeetOnlyOnTheirCommonDates() {
        let advent = Self.window(Weekday.every, "09:00", "18:00", from: "2026-12-01", to: "2026-12-24")
        // 2026-12-01 is a Tuesday: the first Saturday of the campaign is the 5th.
        #expect(ScheduleOverlaps.sharedStretch(advent, Self.window([.saturday], "17:00", "20:00")) == "2026-12-05 17:00-18:00")
        #expect(ScheduleOverlaps.sharedStretch(advent, Self.window(Weekday.every, "09:00", "18:00", from: "2026-12-25")) == nil)
        // Two days, Tuesday and Wednesday: no weekend in them.
        let short = Self.window(Weekday.every, "00:00", "24:00", from: "2026-12-01", to: "2026-12-02")
        #expect(ScheduleOverlaps.sharedStretch(short, Self.window(Weekday.weekend, "10:00", "11:00")) == nil)
        // Only an end date: the last matching day before it.
        #expect(ScheduleOverlaps.sharedStretch(Self.window(Weekday.every, "10:00", "11:00", to: "2026-06-30"),
                                               Self.window([.monday], "10:30", "12:00")) == "2026-06-29 10:30-11:00")
        // A campaign starting the day a night window's occurrence ends.
        #expect(ScheduleOverlaps.sharedStretch(Self.window(Weekday.every, "22:00", "02:00", to: "2026-12-24"),
                                               Self.window(Weekday.every, "00:00", "03:00", from: "2026-12-25"))
                == "2026-12-25 00:00-02:00")
    }

    @Test func onlyEqualPrioritiesAreAmbiguous() {
        let entries = [
            ScheduleEntry(name: "lunch", playlist: "lunch", window: Self.window(Weekday.weekdays, "11:30", "14:00")),
            ScheduleEntry(name: "promo", playlist: "promo", window: Self.window(Weekday.every, "13:00", "15:00")),
            ScheduleEntry(name: "news", playlist: "news", window: Self.window(Weekday.every, "12:00", "12:30"), priority: 1),
            ScheduleEntry(name: "evening", playlist: "evening", window: Self.window(Weekday.every, "14:30", "20:00")),
        ]
        #expect(ScheduleOverlaps.ambiguous(in: entries) == [
            ScheduleOverlap(first: 0, second: 1, example: "monday 13:00-14:00"),
            ScheduleOverlap(first: 1, second: 3, example: "monday 14:30-15:00"),
        ])
    }

    @Test func theWarningNamesBothEntriesAndTheRule() throws {
        let config = try ConfigLoader.parse(text: """
            items: [a.mp4]
            playlists: {lunch: [b.mp4], promo: [c.mp4]}
            schedule:
              entries:
                - {name: lunch, playlist: lunch, days: weekdays, from: "11:30", to: "14:00"}
                - {name: promo, playlist: promo, from: "13:00", to: "15:00"}
                - {name: late, playlist: promo, from: "13:00", to: "15:00", priority: 5}
            """, fileName: "kiosk.conf", baseDirectory: "/srv", fileSystem: FakeFileSystem(files: []))
        #expect(config.scheduleWarnings.map(\.description) == [
            "kiosk.conf:6:7: warning: schedule entries 'lunch' (kiosk.conf:5:7) and 'promo' (kiosk.conf:6:7) have the "
            + "same priority (0) and can both be active, e.g. monday 13:00-14:00; the entry listed first wins, so "
            + "'lunch' plays then; give one a higher priority if that is not what you meant",
        ])
    }
}
