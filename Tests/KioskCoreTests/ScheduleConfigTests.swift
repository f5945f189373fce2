import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `playlists:`, `schedule:` and `display.power` read into the config model, and how a reload
/// classifies changes of them.
@Suite struct ScheduleConfigTests {
    static func parse(_ text: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: text, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: []))
    }

    static let full = """
        display:
          power:
            - {days: weekdays, from: "07:00", to: "22:00"}
            - days: "sat, sun"
              from: 9:30
              to: "24:00"
              dates: {from: 2026-01-01}
          power_control: cec
        items: [a.mp4]
        playlists:
          morning: [am/]
          lunch:
            - b.mp4
            - {path: menu.png, duration: 20}
        schedule:
          timezone: Europe/Berlin
          switch: now
          entries:
            - name: breakfast
              playlist: morning
              days: mon-fri
              from: "07:00"
              to: "10:30"
            - playlist: lunch
              days: [mon, wed]
              from: "11:30"
              to: "14:00"
              priority: 2
            - playlist: default
              days: fri-mon
              from: "22:00"
              to: "02:00"
              dates: {from: 2026-12-01, to: 2026-12-24}
            - playlist: morning
          inserts:
            - {name: noon, at: "12:00", days: weekdays, item: clips/noon.mp4}
            - {at: "18:00", playlist: lunch, dates: {to: 2026-06-30}}

        """

    @Test func everyNewKeyReadsIntoTheModel() throws {
        let config = try Self.parse(Self.full)
        #expect(config.items.map(\.source) == [.file("/srv/kiosk/a.mp4")])
        #expect(config.playlists.map(\.name) == ["morning", "lunch"])
        #expect(config.playlists[0].items.map(\.source) == [.directory("/srv/kiosk/am")])
        // Each item knows its playlist (proof of play's `playlist`); `items:` is the default.
        #expect(config.playlists.map { $0.items.map(\.playlist) } == [["morning"], ["lunch", "lunch"]])
        #expect(config.items.allSatisfy { $0.playlist == "default" })
        #expect(config.playlists[1].items[1].duration == MediaTime(value: 20, timescale: 1))
        #expect(config.playlists[0].location == SourceLocation(file: "kiosk.conf", line: 11, column: 3))
        #expect(config.playlistNames == ["default", "morning", "lunch"])
        #expect(config.items(ofPlaylist: "lunch")?.count == 2)
        #expect(config.items(ofPlaylist: "default") == config.items)
        #expect(config.items(ofPlaylist: "evening") == nil)

        let schedule = config.schedule
        #expect(schedule.timezone == "Europe/Berlin")
        #expect(config.scheduleZoneName == "Europe/Berlin")
        #expect(schedule.switchMode == .now)
        #expect(schedule.entries == [
            ScheduleEntry(name: "breakfast", playlist: "morning",
                          window: ScheduleWindow(days: Weekday.weekdays, start: wall("07:00"), end: wall("10:30"))),
            ScheduleEntry(name: "schedule entry 2", playlist: "lunch",
                          window: ScheduleWindow(days: [.monday, .wednesday], start: wall("11:30"), end: wall("14:00")),
                          priority: 2),
            ScheduleEntry(name: "schedule entry 3", playlist: "default",
                          window: ScheduleWindow(days: [.friday, .saturday, .sunday, .monday], start: wall("22:00"),
                                                 end: wall("02:00"), firstDate: day("2026-12-01"), lastDate: day("2026-12-24"))),
            // Nothing but a playlist: every day, all day.
            ScheduleEntry(name: "schedule entry 4", playlist: "morning", window: ScheduleWindow()),
        ])
        #expect(schedule.entryLocations.map { "\($0.line):\($0.column)" } == ["19:7", "24:7", "29:7", "34:7"])
        #expect(schedule.inserts == [
            TimedInsert(name: "noon", at: wall("12:00"), days: Weekday.weekdays, content: .item("/srv/kiosk/clips/noon.mp4")),
            TimedInsert(name: "insert 2", at: wall("18:00"), lastDate: day("2026-06-30"), content: .playlist("lunch")),
        ])

        #expect(config.display.power == [
            ScheduleWindow(days: Weekday.weekdays, start: wall("07:00"), end: wall("22:00")),
            // A plain 9:30 is a base-60 number to YAML; its text is the time.
            ScheduleWindow(days: Weekday.weekend, start: wall("09:30"), end: .endOfDay, firstDate: day("2026-01-01")),
        ])
        #expect(config.display.powerControl == .cec)
        let rules = config.scheduleRules
        #expect(rules.entries == schedule.entries && rules.inserts == schedule.inserts)
        #expect(rules.powerWindows == config.display.power && rules.switchMode == .now && rules.defaultPlaylist == "default")
    }

    @Test func playlistsDefaultStandsInForItems() throws {
        let config = try Self.parse("playlists:\n  default: [a.mp4, b.mp4]\n  night: [c.mp4]\n")
        #expect(config.items.map(\.source) == [.file("/srv/kiosk/a.mp4"), .file("/srv/kiosk/b.mp4")])
        #expect(config.playlists.map(\.name) == ["night"])
    }

    @Test func withoutAScheduleTheDefaultPlaysOnTheBoxClock() throws {
        let config = try Self.parse("items: [a.mp4]\n")
        #expect(config.schedule == ScheduleConfig())
        #expect(config.scheduleRules.isEmpty)
        #expect(config.scheduleClock.zone == TimeZone.current)
        #expect(config.display.power.isEmpty && config.display.powerControl == .auto)
        #expect(config.scheduleWarnings.isEmpty)
    }

    /// `from` equal to `to` is a window of 24 hours, almost always a typo: a warning at the `to`
    /// (the file still loads), for entries and display.power alike; a window that ends at 24:00
    /// or leaves one out is not warned about.
    @Test func fromEqualToToIsAWarningNotAnError() throws {
        let config = try Self.parse("""
            display:
              power:
                - {from: "07:00", to: "07:00"}
            playlists:
              default: [a.mp4]
              lunch: [b.mp4]
            schedule:
              entries:
                - name: lunch
                  playlist: lunch
                  from: "10:00"
                  to: "10:00"
                - {name: late, playlist: lunch, from: "00:00", to: "24:00", priority: 1}
                - {name: evening, playlist: lunch, from: "18:00", priority: 2}
            """)
        #expect(config.schedule.entries.first?.window.start == config.schedule.entries.first?.window.end, "still loaded as written")
        #expect(config.scheduleWarnings.map(\.description) == [
            "kiosk.conf:3:27: warning: 'from' and 'to' in display.power window 1 are both 07:00, so the window lasts 24 hours "
                + "(07:00 to 07:00 the next day); leave both out for whole days, or correct one if a shorter window was meant",
            "kiosk.conf:12:11: warning: 'from' and 'to' in schedule entry 1 are both 10:00, so the window lasts 24 hours "
                + "(10:00 to 10:00 the next day); leave both out for whole days, or correct one if a shorter window was meant",
        ])
        #expect(config.schedule.withoutLocations.windowWarnings.isEmpty, "a reload compares what the schedule says")
    }

    @Test func dayWordsRangesAndLists() {
        #expect(ConfigWalker.days(named: "mon-fri") == Weekday.weekdays)
        #expect(ConfigWalker.days(named: "sat-sun") == Weekday.weekend)
        #expect(ConfigWalker.days(named: "fri - mon") == [.friday, .saturday, .sunday, .monday])
        #expect(ConfigWalker.days(named: "wed-wed") == [.wednesday])
        #expect(ConfigWalker.days(named: "Daily") == Weekday.every)
        #expect(ConfigWalker.days(named: "mon-") == nil)
        #expect(ConfigWalker.days(named: "mo") == nil)
    }

    /// The example for the README's `kiosk schedule` output: valid, and no overlap to warn about.
    @Test func repositoryScheduleExampleParses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let config = try ConfigLoader.load(path: root.appendingPathComponent("examples/schedule.conf").path)
        #expect(config.schedule.timezone == "Europe/Berlin")
        #expect(config.schedule.entries.map(\.name) == ["breakfast", "lunch", "late", "advent"])
        #expect(config.display.power.count == 2)
        #expect(config.scheduleWarnings == [])
    }

    /// kiosk.conf documents the new keys with commented-out examples: uncommented, they are
    /// valid and say what their comments say.
    @Test func repositoryExampleCommentsAreValidWhenUncommented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent("kiosk.conf"), encoding: .utf8).components(separatedBy: "\n")
        var uncommented: [String] = []
        // Inside an example: which lines still belong to it.
        var belongs: ((String) -> Bool)?
        for line in lines {
            if ["# playlists:", "# schedule:", "# logging:"].contains(line) { belongs = { $0.hasPrefix("# ") } }
            if line == "  # power:" { belongs = { $0 == "  # power:" || $0.hasPrefix("  #   - ") } }
            if let test = belongs, !test(line) { belongs = nil }
            guard belongs != nil, let range = line.range(of: "# ") else {
                uncommented.append(line)
                continue
            }
            uncommented.append(line.replacingCharacters(in: range, with: ""))
        }
        let config = try Self.parse(uncommented.joined(separator: "\n"))
        #expect(config.playlists.map(\.name) == ["morning", "lunch"])
        #expect(config.display.power.count == 2)
        #expect(config.schedule.timezone == "Europe/Berlin")
        #expect(config.schedule.entries.map(\.name) == ["breakfast", "advent"])
        #expect(config.schedule.entries[1].priority == 1)
        #expect(config.schedule.inserts.map(\.content) == [.item("/srv/kiosk/clips/news.mp4"), .playlist("lunch")])
        #expect(config.logging.proofOfPlayPath == "/var/lib/kiosk/plays.jsonl")
        #expect(config.logging.proofOfPlayLimit == 10 * 1024 * 1024)
        #expect(config.playback.resume == .off)
    }

    // MARK: Reload

    @Test func aScheduleEditIsALiveScheduleChange() throws {
        let old = try Self.parse(Self.full)
        let new = try Self.parse(Self.full.replacingOccurrences(of: "to: \"10:30\"", with: "to: \"11:00\""))
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.schedule])
        #expect(changes.appliedNow == [.schedule])
        #expect(ConfigPart.schedule.application == .live && ConfigPart.playlists.application == .live)
        let running = PlayerSettings(config: old)
        #expect(running.reloaded(from: new).schedule == ScheduleSettings(new))
        #expect(running.reloaded(from: new).schedule.rules.entries[0].window.end == wall("11:00"))
    }

    @Test func displayPowerIsPartOfTheScheduleNotOfTheDisplay() throws {
        let old = try Self.parse(Self.full)
        let power = try Self.parse(Self.full.replacingOccurrences(of: "to: \"22:00\"", with: "to: \"23:00\""))
        #expect(ConfigChanges(from: old, to: power).parts == [.schedule])
        // Merging a live reload into the running config takes the new windows, even when the
        // rest of the display section waits for a restart.
        let both = try Self.parse(Self.full.replacingOccurrences(of: "to: \"22:00\"", with: "to: \"23:00\"")
            .replacingOccurrences(of: "power_control: cec", with: "power_control: kms"))
        #expect(ConfigChanges(from: old, to: both).parts == [.display, .schedule])
        let merged = both.appliedLive(to: old)
        #expect(merged.display.powerControl == .cec)
        #expect(merged.display.power[0].end == wall("23:00"))
        #expect(PlayerSettings(config: old).display.powerControl == .cec)
    }

    @Test func playlistEditsAreNamedAndMovedLinesAreNot() throws {
        let old = try Self.parse(Self.full)
        let moved = try Self.parse("# a comment\n\n" + Self.full)
        #expect(old.schedule.entryLocations != moved.schedule.entryLocations)
        #expect(ConfigChanges(from: old, to: moved).isEmpty)
        let edited = try Self.parse(Self.full.replacingOccurrences(of: "morning: [am/]", with: "morning: [am/, extra.mp4]"))
        #expect(ConfigChanges(from: old, to: edited).parts == [.playlists])
        #expect(ConfigChanges(from: old, to: edited).appliedSummary == "playlists")
    }
}
