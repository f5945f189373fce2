import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `kiosk schedule`'s core: reading --at and --for, and the text and JSON it prints.
@Suite struct ScheduleDryRunTests {
    static let berlin = zone("Europe/Berlin")

    static let shop = """
        items: [a.mp4]
        playlists: {shop: [b.mp4]}
        display:
          power: [{from: "08:00", to: "20:00"}]
        schedule:
          timezone: Europe/Berlin
          entries:
            - {name: opening hours, playlist: shop, days: mon-sat, from: "09:00", to: "18:00"}
          inserts:
            - {name: noon, at: "12:00", days: sun, item: noon.mp4}

        """

    static func dryRun(at text: String, span: String?) throws -> ScheduleDryRun {
        let config = try ConfigLoader.parse(text: shop, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                                            fileSystem: FakeFileSystem(files: []))
        let at = try #require(ScheduleTimeText.parseInstant(text, clock: config.scheduleClock))
        return ScheduleDryRun(config: config, at: at, span: span.flatMap(ScheduleTimeText.parseDuration))
    }

    @Test func spansReadWithTheirUnits() {
        #expect(ScheduleTimeText.parseDuration("7d") == 604_800)
        #expect(ScheduleTimeText.parseDuration("36h") == 129_600)
        #expect(ScheduleTimeText.parseDuration("90m") == 5_400)
        #expect(ScheduleTimeText.parseDuration("45s") == 45)
        #expect(ScheduleTimeText.parseDuration("1d12h") == 129_600)
        #expect(ScheduleTimeText.parseDuration("1.5H") == 5_400)
        #expect(ScheduleTimeText.parseDuration("600") == 600)
        #expect(ScheduleTimeText.parseDuration("400d") == 34_560_000)
        for bad in ["", "7x", "d", "0s", "-1d", "401d", "1d30", "7 d", "1..5h"] {
            #expect(ScheduleTimeText.parseDuration(bad) == nil, "\(bad)")
        }
    }

    /// A date written right that does not exist was "not an ISO 8601 time"; now it says why.
    @Test func aDayThatDoesNotExistIsNamed() {
        #expect(ScheduleTimeText.parseInstant("2026-02-30T10:00:00", clock: Self.berlin) == nil)
        #expect(ScheduleTimeText.missingDay(in: "2026-02-30T10:00:00") == "February 2026 has no day 30 (February has days 1 to 28 then)")
        #expect(ScheduleTimeText.missingDay(in: "2027-02-29") == "February 2027 has no day 29 (February has days 1 to 28 then)")
        #expect(ScheduleTimeText.missingDay(in: "2026-04-31 12:00") == "April 2026 has no day 31 (April has days 1 to 30 then)")
        #expect(ScheduleTimeText.missingDay(in: "2026-13-01") == "there is no month 13 (01 to 12)")
        for fine in ["2028-02-29T10:00", "2026-10-22", "tomorrow", "2026-2-30", ""] {
            #expect(ScheduleTimeText.missingDay(in: fine) == nil, "\(fine)")
        }
    }

    /// Foundation reads an unknown TZ as UTC silently: `kiosk schedule` warns, naming it.
    @Test func anUnknownTZIsNamed() {
        let utc = TimeZone(identifier: "Etc/UTC")!
        #expect(ZoneClock.unknownTZWarning("Nowhere/Bogus", readAs: utc)
                == "warning: TZ is 'Nowhere/Bogus', which the tz database does not know; times are read in Etc/UTC "
                + "(set TZ to an IANA name like Europe/Berlin, or schedule.timezone in kiosk.conf)")
        for known in [nil, "", "Europe/Berlin", ":Europe/Berlin", "/usr/share/zoneinfo/America/New_York", "UTC"] {
            #expect(ZoneClock.unknownTZWarning(known, readAs: utc) == nil, "\(known ?? "unset")")
        }
    }

    @Test func instantsReadWithOrWithoutAnOffset() {
        let clock = Self.berlin
        let noonUTC = Date(timeIntervalSince1970: 1_792_663_200)   // 2026-10-22T10:00:00Z
        #expect(ScheduleTimeText.parseInstant("2026-10-22T12:00:00+02:00", clock: clock) == noonUTC)
        #expect(ScheduleTimeText.parseInstant("2026-10-22T10:00Z", clock: clock) == noonUTC)
        #expect(ScheduleTimeText.parseInstant("2026-10-22T05:30:00-0430", clock: clock) == noonUTC)
        #expect(ScheduleTimeText.parseInstant("2026-10-22T10:00:00.250+00", clock: clock) == noonUTC.addingTimeInterval(0.25))
        // No offset: the schedule's own wall clock.
        #expect(ScheduleTimeText.parseInstant("2026-10-22 12:00", clock: clock) == noonUTC)
        #expect(ScheduleTimeText.parseInstant("2026-10-22T12:00:30", clock: clock) == noonUTC.addingTimeInterval(30))
        #expect(ScheduleTimeText.parseInstant("2026-10-22", clock: clock) == noonUTC.addingTimeInterval(-12 * 3_600))
        // The doubled hour of a fall-back night is its first time round; a time the spring
        // skips is the end of the gap.
        #expect(ScheduleTimeText.parseInstant("2026-10-25T02:30", clock: clock).map { ScheduleTimeText.iso8601($0, clock: clock) }
                == "2026-10-25T02:30:00+02:00")
        #expect(ScheduleTimeText.parseInstant("2026-03-29T02:30", clock: clock).map { ScheduleTimeText.iso8601($0, clock: clock) }
                == "2026-03-29T03:00:00+02:00")
        for bad in ["", "now", "2026-10-22T", "2026-10-22T25:00", "2026-10-22T12:60", "2026-10-22T12", "2026-13-01",
                    "2026-10-22T12:00+2", "2026-10-22X12:00", "2026-10-22T12:00:00+15:00", "22.10.2026 12:00"] {
            #expect(ScheduleTimeText.parseInstant(bad, clock: clock) == nil, "\(bad)")
        }
    }

    @Test func instantsPrintWithTheOffsetOfTheirMoment() {
        let clock = Self.berlin
        let before = Date(timeIntervalSince1970: 1_792_889_999)   // 2026-10-25T00:59:59Z
        #expect(ScheduleTimeText.iso8601(before, clock: clock) == "2026-10-25T02:59:59+02:00")
        #expect(ScheduleTimeText.iso8601(before.addingTimeInterval(1), clock: clock) == "2026-10-25T02:00:00+01:00")
        #expect(ScheduleTimeText.readable(before.addingTimeInterval(1), clock: clock) == "2026-10-25 02:00:00 +01:00")
        #expect(ScheduleTimeText.iso8601(before, clock: zone("America/St_Johns")) == "2026-10-24T22:29:59-02:30")
    }

    /// A week from Thursday 2026-10-22 across Berlin's fall-back night (Sunday the 25th, 03:00
    /// CEST -> 02:00 CET): every change with its local time, the offset going from +02:00 to
    /// +01:00, and the Sunday insert.
    @Test func aWeekAcrossTheAutumnChangeAsText() throws {
        let dryRun = try Self.dryRun(at: "2026-10-22T12:00:00+02:00", span: "7d")
        func weekday(_ date: String, _ name: String, _ offset: String) -> [String] {
            ["  \(date) 08:00 \(offset) \(name)  playlist default, entry default, display on",
             "  \(date) 09:00 \(offset) \(name)  playlist shop, entry 'opening hours', display on",
             "  \(date) 18:00 \(offset) \(name)  playlist default, entry default, display on",
             "  \(date) 20:00 \(offset) \(name)  playlist default, entry default, display off"]
        }
        // Appended piece by piece: as one `+` chain, Swift 6.0 (deploy/arm64) gives up type-checking it.
        var expected: [String] = [
            "timezone Europe/Berlin",
            "at 2026-10-22 12:00:00 +02:00 thursday: playlist shop, entry 'opening hours', display on",
            "changes until 2026-10-29 11:00:00 +01:00:",
            "  2026-10-22 18:00 +02:00 thu  playlist default, entry default, display on",
            "  2026-10-22 20:00 +02:00 thu  playlist default, entry default, display off",
        ]
        expected += weekday("2026-10-23", "fri", "+02:00")
        expected += weekday("2026-10-24", "sat", "+02:00")
        expected += [
            "  2026-10-25 08:00 +01:00 sun  playlist default, entry default, display on",
            "  2026-10-25 20:00 +01:00 sun  playlist default, entry default, display off",
        ]
        expected += weekday("2026-10-26", "mon", "+01:00")
        expected += weekday("2026-10-27", "tue", "+01:00")
        expected += weekday("2026-10-28", "wed", "+01:00")
        expected += weekday("2026-10-29", "thu", "+01:00").prefix(2)
        expected += [
            "inserts until 2026-10-29 11:00:00 +01:00:",
            "  2026-10-25 12:00 +01:00 sun  insert 'noon': item /srv/kiosk/noon.mp4",
        ]
        #expect(dryRun.text.components(separatedBy: "\n") == expected)
    }

    @Test func theSameWeekAsJSON() throws {
        let dryRun = try Self.dryRun(at: "2026-10-22T12:00:00+02:00", span: "7d")
        let text = dryRun.json.json
        // Keys in the documented order, one line.
        #expect(text.hasPrefix("""
            {"at":"2026-10-22T12:00:00+02:00","timezone":"Europe/Berlin",\
            "state":{"playlist":"shop","entry":"opening hours","display_power":"on"},\
            "changes":[{"at":"2026-10-22T18:00:00+02:00","utc_offset":"+02:00","playlist":"default","entry":null,\
            "display_power":"on"},
            """))
        #expect(!text.contains("\n"))
        let parsed = try #require(ControlValue.parse(text))
        guard case .array(let changes)? = parsed["changes"], case .array(let inserts)? = parsed["inserts"] else {
            Issue.record("no changes or inserts in \(text)")
            return
        }
        #expect(changes.count == 26)
        let offsets = changes.compactMap { $0["utc_offset"]?.plainText }
        #expect(offsets == Array(repeating: "+02:00", count: 10) + Array(repeating: "+01:00", count: 16))
        #expect(changes[10]["at"] == .string("2026-10-25T08:00:00+01:00"))
        #expect(changes[10]["display_power"] == .string("on"))
        #expect(inserts == [.object([("at", .string("2026-10-25T12:00:00+01:00")), ("item", .string("/srv/kiosk/noon.mp4")),
                                     ("name", .string("noon")), ("playlist", .null), ("utc_offset", .string("+01:00"))])])
    }

    @Test func withoutASpanTheNextChangeIsNamed() throws {
        let dryRun = try Self.dryRun(at: "2026-10-25 03:30", span: nil)
        #expect(dryRun.state == ScheduleState(entry: nil, playlist: "default", powerOn: false))
        #expect(dryRun.text == """
            timezone Europe/Berlin
            at 2026-10-25 03:30:00 +01:00 sunday: playlist default, entry default, display off
            next change: 2026-10-25 08:00 +01:00 sun  playlist default, entry default, display on
            """)
        #expect(dryRun.json.json == """
            {"at":"2026-10-25T03:30:00+01:00","timezone":"Europe/Berlin",\
            "state":{"playlist":"default","entry":null,"display_power":"off"},"changes":[],"inserts":[]}
            """)
    }
}
