import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A playable default playlist for cases that are about something else.
private let items = "items: [a.mp4]\n"
/// `items` and a schedule section with one entry whose body is `entry` (a flow map's insides).
private func entry(_ body: String) -> String {
    items + "playlists:\n  lunch: [b.mp4]\nschedule:\n  entries:\n    - {\(body)}\n"
}
/// Same for one insert.
private func insert(_ body: String) -> String {
    items + "playlists:\n  lunch: [b.mp4]\nschedule:\n  inserts:\n    - {\(body)}\n"
}

/// Every bad value of `playlists:`, `schedule:` and `display.power` gives one diagnostic at its
/// own line:column (the table's format is `ConfigErrorTests`').
let scheduleConfigErrorTable: [ConfigErrorCase] = [
    // The default playlist, and playlists named where they are not defined.
    ConfigErrorCase(name: "items and playlists.default", yaml: items + "playlists:\n  default: [b.mp4]\n", line: 3, column: 3,
                    fragment: "the default playlist is written twice: as 'playlists.default' here and as 'items' at 1:1; expected only one of them"),
    ConfigErrorCase(name: "no default playlist", yaml: "playlists:\n  lunch: [b.mp4]\n", line: 1, column: 1,
                    fragment: "no items: there is no 'items' list (nor 'playlists.default')"),
    ConfigErrorCase(name: "entry names an unknown playlist", yaml: entry("playlist: lunh"), line: 6, column: 18,
                    fragment: "'playlist' in schedule entry 1 is 'lunh', which no playlist defines; expected one of: default, lunch (did you mean 'lunch'?)"),
    ConfigErrorCase(name: "insert names an unknown playlist", yaml: insert("at: \"12:00\", playlist: news"), line: 6, column: 31,
                    fragment: "'playlist' in insert 1 is 'news', which no playlist defines; expected one of: default, lunch"),
    ConfigErrorCase(name: "playlists is a list", yaml: items + "playlists: [a.mp4]\n", line: 2, column: 12,
                    fragment: "'playlists' is a list; expected a map of names to lists of items"),
    ConfigErrorCase(name: "empty playlist", yaml: items + "playlists:\n  lunch: []\n", line: 3, column: 10,
                    fragment: "no items: 'playlists.lunch' is an empty list"),
    ConfigErrorCase(name: "typo in a playlist's item", yaml: items + "playlists:\n  lunch:\n    - {path: b.mp4, volme: 5}\n",
                    line: 4, column: 21, fragment: "unknown key 'volme' in item 1 of playlists.lunch"),

    // schedule itself.
    ConfigErrorCase(name: "unknown time zone", yaml: items + "schedule:\n  timezone: Mars/Olympus_Mons\n", line: 3, column: 13,
                    fragment: "'timezone' in schedule is 'Mars/Olympus_Mons', which the tz database does not know; expected an IANA name like Europe/Berlin"),
    ConfigErrorCase(name: "time zone typo", yaml: items + "schedule:\n  timezone: Europe/Berln\n", line: 3, column: 13,
                    fragment: "(did you mean 'Europe/Berlin'?)"),
    ConfigErrorCase(name: "bad switch", yaml: items + "schedule:\n  switch: later\n", line: 3, column: 11,
                    fragment: "'switch' in schedule is the string 'later'; expected one of: seam, now"),
    ConfigErrorCase(name: "typo in schedule", yaml: items + "schedule:\n  entrys: []\n", line: 3, column: 3,
                    fragment: "unknown key 'entrys' in schedule; expected one of: timezone, switch, entries, inserts (did you mean 'entries'?)"),
    ConfigErrorCase(name: "entries is a map", yaml: items + "schedule:\n  entries: {playlist: default}\n", line: 3, column: 12,
                    fragment: "'entries' in schedule is a map; expected a list"),

    // Entries.
    ConfigErrorCase(name: "hour 25", yaml: entry("playlist: lunch, from: \"25:00\""), line: 6, column: 31,
                    fragment: "'from' in schedule entry 1 is the string '25:00'; expected a time of day HH:MM from 00:00 to 23:59"),
    ConfigErrorCase(name: "plain 25:00", yaml: entry("playlist: lunch, to: 25:00"), line: 6, column: 29,
                    fragment: "'to' in schedule entry 1 is 25:00; expected a time of day HH:MM from 00:00 to 24:00"),
    ConfigErrorCase(name: "minute 60", yaml: entry("playlist: lunch, to: \"12:60\""), line: 6, column: 29,
                    fragment: "'to' in schedule entry 1 is the string '12:60'"),
    ConfigErrorCase(name: "a window cannot start at 24:00", yaml: entry("playlist: lunch, from: \"24:00\""), line: 6, column: 31,
                    fragment: "expected a time of day HH:MM from 00:00 to 23:59"),
    ConfigErrorCase(name: "bad weekday in a list", yaml: entry("playlist: lunch, days: [mon, funday]"), line: 6, column: 37,
                    fragment: "'funday' in 'days' of schedule entry 1 is not a day; expected weekdays, weekend, daily, or days mon..sun"),
    ConfigErrorCase(name: "bad weekday in a comma string", yaml: entry("playlist: lunch, days: \"mon, tues\""), line: 6, column: 31,
                    fragment: "'tues' in 'days' of schedule entry 1 is not a day; expected weekdays, weekend, daily, or days mon..sun as a list ([mon, wed]), separated by commas (mon, wed) or as a range (mon-fri) (did you mean 'tue'?)"),
    ConfigErrorCase(name: "weekdays misspelt", yaml: entry("playlist: lunch, days: weekdyas"), line: 6, column: 31,
                    fragment: "(did you mean 'weekdays'?)"),
    ConfigErrorCase(name: "days a map", yaml: entry("playlist: lunch, days: {mon: 1}"), line: 6, column: 31,
                    fragment: "'days' in schedule entry 1 is a map; expected weekdays, weekend, daily"),
    ConfigErrorCase(name: "entry without playlist", yaml: entry("from: \"07:00\""), line: 6, column: 7,
                    fragment: "schedule entry 1 has no 'playlist'; expected playlist: followed by one of: default, lunch"),
    ConfigErrorCase(name: "typo in an entry", yaml: entry("playlist: lunch, form: \"07:00\""), line: 6, column: 25,
                    fragment: "unknown key 'form' in schedule entry 1; expected one of: name, playlist, priority, days, from, to, dates"),
    ConfigErrorCase(name: "priority a word", yaml: entry("playlist: lunch, priority: high"), line: 6, column: 35,
                    fragment: "'priority' in schedule entry 1 is the string 'high'; expected a whole number from -1000000 to 1000000"),
    ConfigErrorCase(name: "entry is a string", yaml: items + "schedule:\n  entries:\n    - lunch\n", line: 4, column: 7,
                    fragment: "schedule entry 1 is the string 'lunch'; expected a map of name, playlist"),
    ConfigErrorCase(name: "last date before the first", yaml: entry("playlist: lunch, dates: {from: 2026-12-24, to: 2026-12-01}"),
                    line: 6, column: 55, fragment: "'to' (2026-12-01) in dates of schedule entry 1 is before 'from' (2026-12-24); expected a last date on or after the first"),
    ConfigErrorCase(name: "a date that does not exist", yaml: entry("playlist: lunch, dates: {from: 2026-02-30}"), line: 6, column: 39,
                    fragment: "'from' in dates of schedule entry 1 is the string '2026-02-30'; expected a date YYYY-MM-DD"),
    ConfigErrorCase(name: "dates with neither bound", yaml: entry("playlist: lunch, dates: {}"), line: 6, column: 32,
                    fragment: "'dates' in schedule entry 1 names no date; expected from: and/or to:"),
    ConfigErrorCase(name: "typo in dates", yaml: entry("playlist: lunch, dates: {form: 2026-12-01}"), line: 6, column: 33,
                    fragment: "unknown key 'form' in dates of schedule entry 1; expected one of: from, to"),

    // Inserts.
    ConfigErrorCase(name: "insert with item and playlist", yaml: insert("at: \"12:00\", item: news.mp4, playlist: lunch"),
                    line: 6, column: 37, fragment: "insert 1 has both 'item' and 'playlist' (the other at 6:21); expected exactly one"),
    ConfigErrorCase(name: "insert with neither", yaml: insert("at: \"12:00\""), line: 6, column: 7,
                    fragment: "insert 1 has neither 'item' nor 'playlist'; expected exactly one"),
    ConfigErrorCase(name: "insert without at", yaml: insert("item: news.mp4"), line: 6, column: 7,
                    fragment: "insert 1 has no 'at'; expected at: followed by a time of day"),
    ConfigErrorCase(name: "insert at 24:00", yaml: insert("at: \"24:00\", item: news.mp4"), line: 6, column: 12,
                    fragment: "'at' in insert 1 is the string '24:00'; expected a time of day HH:MM from 00:00 to 23:59"),
    ConfigErrorCase(name: "insert's bad day", yaml: insert("at: \"12:00\", days: someday, item: news.mp4"), line: 6, column: 27,
                    fragment: "'someday' in 'days' of insert 1 is not a day"),
    ConfigErrorCase(name: "typo in an insert", yaml: insert("at: \"12:00\", iten: news.mp4"), line: 6, column: 21,
                    fragment: "unknown key 'iten' in insert 1; expected one of: name, at, days, dates, item, playlist (did you mean 'item'?)"),

    // display.power and power_control.
    ConfigErrorCase(name: "bad power control", yaml: "display:\n  power_control: hdmi\n" + items, line: 2, column: 18,
                    fragment: "'power_control' in display is the string 'hdmi'; expected one of: auto, kms, cec, both"),
    ConfigErrorCase(name: "power an empty list", yaml: "display:\n  power: []\n" + items, line: 2, column: 10,
                    fragment: "'power' in display is a list; expected a list of windows when the screen is on"),
    ConfigErrorCase(name: "power window with a bad time", yaml: "display:\n  power:\n    - {from: \"7\"}\n" + items, line: 3, column: 14,
                    fragment: "'from' in display.power window 1 is the string '7'; expected a time of day HH:MM"),
    ConfigErrorCase(name: "power window typo", yaml: "display:\n  power:\n    - {day: weekdays}\n" + items, line: 3, column: 8,
                    fragment: "unknown key 'day' in display.power window 1; expected one of: days, from, to, dates (did you mean 'days'?)"),
    ConfigErrorCase(name: "power window a string", yaml: "display:\n  power:\n    - weekdays\n" + items, line: 3, column: 7,
                    fragment: "display.power window 1 is the string 'weekdays'; expected a map of days, from, to, dates"),
]

@Suite("Schedule config errors")
struct ScheduleConfigErrorTests {
    @Test(arguments: scheduleConfigErrorTable)
    func reportsOneDiagnosticWithPosition(_ testCase: ConfigErrorCase) {
        let diagnostics = parseDiagnostics(testCase.yaml)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let diagnostic = diagnostics.first
        #expect(diagnostic?.line == testCase.line, "\(diagnostics)")
        #expect(diagnostic?.column == testCase.column, "\(diagnostics)")
        #expect(diagnostic?.message.contains(testCase.fragment) == true, "\(diagnostics)")
    }

    /// A file with several schedule mistakes: all of them, in file order.
    @Test func everyScheduleProblemAtOnce() {
        let yaml = """
            items: [a.mp4]
            schedule:
              timezone: Nowhere/Land
              entries:
                - playlist: lunch
                  from: "25:00"
                  days: [mon, xyz]
              inserts:
                - {at: "12:00", item: a.mp4, playlist: default}
            """
        #expect(parseDiagnostics(yaml).map { "\($0.line):\($0.column)" } == ["3:13", "5:17", "6:13", "7:19", "9:34"])
    }
}
