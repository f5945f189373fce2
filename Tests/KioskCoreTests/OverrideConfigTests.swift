import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// kiosk.conf's `overrides:`: what a valid map reads as, and each bad value's one diagnostic
/// at its line:column (run by `ConfigErrorTests` with the others).

private let items = "items: [a.mp4, b.mp4]\nplaylists:\n  promo: [c.mp4]\n"

private func parse(_ yaml: String) throws -> KioskConfig {
    try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                           fileSystem: FakeFileSystem(files: []))
}

let overrideConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "overrides is a list", yaml: items + "overrides: [fire]\n", line: 4, column: 12,
                    fragment: "'overrides' is a list; expected a map of names to what each plays, like evacuate: {item: 3, priority: 100}"),
    ConfigErrorCase(name: "a name with a space", yaml: items + "overrides:\n  fire drill: {item: 0}\n", line: 5, column: 3,
                    fragment: "an override name is the string 'fire drill'; expected a plain name without spaces"),
    ConfigErrorCase(name: "an override that is no map", yaml: items + "overrides:\n  fire: 3\n", line: 5, column: 9,
                    fragment: "override 'fire' is 3; expected a map of item, items, playlist, text, color, background, size, priority, duration"),
    ConfigErrorCase(name: "plays nothing", yaml: items + "overrides:\n  fire: {priority: 3}\n", line: 5, column: 9,
                    fragment: "override 'fire' plays nothing; expected exactly one of item: N"),
    ConfigErrorCase(name: "a card and an item", yaml: items + "overrides:\n  fire: {text: Leave, item: 0}\n", line: 5, column: 23,
                    fragment: "override 'fire' has both 'text' (at 5:10) and 'item'; expected exactly one: what the override plays"),
    ConfigErrorCase(name: "a card of no words", yaml: items + "overrides:\n  fire: {text: \"\"}\n", line: 5, column: 16,
                    fragment: "'text' in override 'fire' is the string ''; expected the words the card shows"),
    ConfigErrorCase(name: "a card of spaces", yaml: items + "overrides:\n  fire: {text: \" \\n \"}\n", line: 5, column: 16,
                    fragment: "'text' in override 'fire' has no words; expected the words the card shows"),
    ConfigErrorCase(name: "a card's colour", yaml: items + "overrides:\n  fire: {text: Leave, background: red}\n", line: 5, column: 35,
                    fragment: "'background' in override 'fire' is the string 'red'; expected a colour like #ffffff"),
    ConfigErrorCase(name: "a colour without a card", yaml: items + "overrides:\n  fire: {item: 0, color: \"#ffffff\"}\n", line: 5, column: 19,
                    fragment: "'color' in override 'fire' styles a text card; expected it with text: \"...\", or leave it out"),
    ConfigErrorCase(name: "a command is no content", yaml: items + "overrides:\n  fire: {command: sync_now}\n", line: 5, column: 10,
                    fragment: "unknown key 'command' in override 'fire'; expected one of: item, items, playlist, text, color"),
    ConfigErrorCase(name: "priority of text", yaml: items + "overrides:\n  fire: {item: 0, priority: high}\n", line: 5, column: 29,
                    fragment: "'priority' in override 'fire' is the string 'high'; expected a whole number"),
    ConfigErrorCase(name: "duration of none", yaml: items + "overrides:\n  fire: {item: 0, duration: 0}\n", line: 5, column: 29,
                    fragment: "'duration' in override 'fire' is 0; expected seconds > 0"),
    ConfigErrorCase(name: "an unknown layer kept", yaml: items + "layers:\n  - text: {text: HI, name: hello}\noverrides:\n  fire: {item: 0, layers: [helo]}\n",
                    line: 7, column: 27,
                    fragment: "'layers' in override 'fire' names 'helo', which layers: does not define; expected some of: hello"),
    ConfigErrorCase(name: "an unknown playlist", yaml: items + "overrides:\n  fire: {playlist: promos}\n", line: 5, column: 20,
                    fragment: "'playlist' in override 'fire' is 'promos', which no playlist defines"),
    ConfigErrorCase(name: "a sound of no file", yaml: items + "overrides:\n  fire: {item: 0, sound: \"\"}\n", line: 5, column: 26,
                    fragment: "'sound' in override 'fire' is the string ''; expected the path of a sound file, like sound: tone.wav"),
    ConfigErrorCase(name: "a sound looped without a sound", yaml: items + "overrides:\n  fire: {item: 0, sound_loop: true}\n", line: 5, column: 19,
                    fragment: "'sound_loop' in override 'fire' repeats its sound; expected it with sound: FILE, or leave it out"),
    ConfigErrorCase(name: "a sound looped of text", yaml: items + "overrides:\n  fire: {item: 0, sound: a.wav, sound_loop: always}\n",
                    line: 5, column: 45, fragment: "'sound_loop' in override 'fire' is the string 'always'; expected true or false"),
]

@Suite("Overrides in kiosk.conf")
struct OverrideConfigTests {
    @Test func readsEachOverrideWithItsDefaults() throws {
        let config = try parse(items + """
            overrides:
              evacuate: {item: 1, priority: 100}
              promo: {playlist: promo, duration: 1:30}
              welcome: {items: [w.mp4]}
            triggers:
              - {name: alarm, key: KEY_F9, command: [override, evacuate]}
            """)
        #expect(config.overrides.map(\.name) == ["evacuate", "promo", "welcome"])
        #expect(config.overrides[0].content == .item(1) && config.overrides[0].priority == 100 && config.overrides[0].duration == nil)
        #expect(config.overrides[1].content == .playlist("promo") && config.overrides[1].duration == MediaTime(value: 90, timescale: 1))
        #expect(config.overrides[2].priority == 0)
        #expect(config.triggers.first?.content == .command(["override", "evacuate"]))
        // What each plays, expanded as a trigger's would be.
        let set = OverrideSet(config.overrides, defaultEntries: playlistEntries("a", "b"), playlists: ["promo": playlistEntries("c")],
                              expand: { _ in ([], ["w.mp4: no such file"]) })
        #expect(set.override(named: "evacuate")?.entries == playlistEntries("a", "b").suffix(1).map { $0 })
        #expect(set.override(named: "promo")?.entries == playlistEntries("c"))
        #expect(set.override(named: "welcome")?.problem == "its items have nothing to play now; w.mp4: no such file")
    }

    /// `sound` is found against kiosk.conf's folder and not looked for (it may come later).
    @Test func anOverridesSoundIsItsPathAndWhetherItLoops() throws {
        let config = try parse(items + """
            overrides:
              evacuate: {text: Leave, sound: tones/alarm.wav, sound_loop: true}
              chime: {item: 1, sound: /opt/chime.ogg}
              plain: {text: Closed}
            """)
        #expect(config.overrides.map(\.sound) == [SoundCue(path: "/srv/kiosk/tones/alarm.wav", loops: true),
                                                 SoundCue(path: "/opt/chime.ogg", loops: false), nil])
    }

    @Test func aTextOverrideIsOneCardWithItsStyle() throws {
        let config = try parse(items + """
            overrides:
              evacuate: {text: "Use the east exit\\nNow", background: "#c00000", size: 10%, priority: 100}
              plain: {text: Closed}
            """)
        let card = TextCard(text: "Use the east exit\nNow", background: LayerColor(rgb: 0xC00000), size: .percent(10))
        #expect(config.overrides.map(\.name) == ["evacuate", "plain"])
        guard case .items(let evacuate) = config.overrides[0].content, case .items(let plain) = config.overrides[1].content else {
            Issue.record("not items: \(config.overrides.map(\.content))")
            return
        }
        #expect(evacuate.map(\.source) == [.card(card)] && config.overrides[0].priority == 100)
        #expect(plain.map(\.source) == [.card(TextCard(text: "Closed"))])
        // It expands to one still entry named by its words, whatever files exist.
        let entries = PlaylistExpander(fileSystem: FakeFileSystem(files: [])).expand(evacuate).entries
        #expect(entries.map(\.media) == [.card(card)] && entries.first?.isStillImage == true)
        #expect(entries.first?.title == "text:Use the east exit")
        #expect(TextCard(text: String(repeating: "ab ", count: 30)).name.count == 45, "text: and 40 characters at most")
    }

    @Test func theLayersKeptUpAreItsOwnAndItsAlertsText() throws {
        let config = try parse(items + """
            layers:
              - clock: {name: clock}
              - text: {text: Alert, name: alert}
              - text: {text: Welcome, name: hello}
            overrides:
              evacuate: {item: 1, layers: [clock]}
              promo: {item: 0}
            alerts:
              cap: {url: "https://a.example/cap.xml", override: evacuate, text_layer: alert}
            """)
        #expect(config.overrides.map(\.layers) == [["clock", "alert"], []])
        // Each layer name once, whichever way it came.
        let twice = try parse(items + """
            layers:
              - text: {text: Alert, name: alert}
            overrides:
              evacuate: {item: 1, layers: alert}
            alerts:
              cap: {url: "https://a.example/cap.xml", override: evacuate, text_layer: alert}
            """)
        #expect(twice.overrides.first?.layers == ["alert"])
    }

    @Test func aChangeOfAnOverrideIsAPartOfTheReload() throws {
        let before = try parse(items + "overrides:\n  fire: {item: 0}\n")
        let after = try parse(items + "\noverrides:\n  fire: {item: 0, priority: 5}\n")
        #expect(ConfigChanges(from: before, to: after).parts == [.overrides])
        #expect(ConfigChanges(from: before, to: try parse(items + "\n\noverrides:\n  fire: {item: 0}\n")).parts.isEmpty,
                "moved, not changed")
        #expect(ConfigPart.overrides.application == .live)
    }
}

let alertsConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "alerts without a url", yaml: items + "overrides: {fire: {item: 0}}\nalerts:\n  cap: {override: fire}\n",
                    line: 6, column: 8, fragment: "alerts.cap has no 'url'; expected url:"),
    ConfigErrorCase(name: "alerts of ftp", yaml: items + "overrides: {fire: {item: 0}}\nalerts:\n  cap: {url: ftp://a/cap, override: fire}\n",
                    line: 6, column: 14, fragment: "'url' in alerts.cap is 'ftp://a/cap'; expected an http:// or https:// URL"),
    ConfigErrorCase(name: "alerts naming no override", yaml: items + "overrides: {fire: {item: 0}}\nalerts:\n  cap: {url: https://a/cap, override: flre}\n",
                    line: 6, column: 39, fragment: "'override' in alerts.cap is 'flre', which overrides: does not define; expected one of: fire (did you mean 'fire'?)"),
    ConfigErrorCase(name: "alerts of a bad severity", yaml: items + "overrides: {fire: {item: 0}}\nalerts:\n  cap: {url: https://a/cap, override: fire, min_severity: high}\n",
                    line: 6, column: 59, fragment: "'min_severity' in alerts.cap is the string 'high'; expected one of: Unknown, Minor, Moderate, Severe, Extreme"),
]

@Suite("CAP alerts in kiosk.conf")
struct AlertsConfigTests {
    @Test func readsTheFeedItsFiltersAndWhatItShows() throws {
        let config = try parse(items + """
            overrides: {evacuate: {item: 0, priority: 100}}
            alerts:
              cap: {url: "https://a.example/cap.atom", interval: 1:00, areas: [Berlin, "006113"], min_severity: severe,
                    min_urgency: Expected, default_duration: 15:00, override: evacuate}
            """)
        let cap = try #require(config.alerts)
        #expect(cap.url == "https://a.example/cap.atom" && cap.interval == MediaTime(value: 60, timescale: 1))
        #expect(cap.filter == CapAlertBook.Filter(areas: ["Berlin", "006113"], minSeverity: .severe, minUrgency: .expected,
                                                  defaultDuration: 900))
        #expect(cap.override == "evacuate" && cap.textLayer == nil)
        #expect(try parse(items).alerts == nil)
    }
}

extension AlertsConfigTests {
    /// kiosk.conf shows both sections commented out; taken in, they read as their comments say.
    @Test func theExamplesCommentedSectionsParse() throws {
        let overrides = try #require(try ExampleConfigFile.commentedSection("# overrides:"))
        let alerts = try #require(try ExampleConfigFile.commentedSection("# alerts:"))
        let config = try ConfigLoader.parse(text: items.replacingOccurrences(of: "promo", with: "lunch") + overrides + "\n" + alerts + "\n",
                                            fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: FakeFileSystem(files: []))
        #expect(config.overrides.map(\.name) == ["evacuate", "closed", "doors", "promo"])
        #expect(config.overrides[3].duration == MediaTime(value: 300, timescale: 1))
        #expect(config.overrides[2].sound == SoundCue(path: "/srv/kiosk/sounds/chime.wav", loops: false))
        guard case .items(let closed) = config.overrides[1].content else { Issue.record("closed plays no items"); return }
        #expect(closed.map(\.source) == [.card(TextCard(text: "Closed today\nBack tomorrow at 9", background: LayerColor(rgb: 0x203040)))])
        let cap = try #require(config.alerts)
        #expect(cap.override == "evacuate" && cap.filter.minSeverity == .severe && cap.filter.defaultDuration == 3600)
        #expect(cap.filter.areas == ["Berlin", "11000000"] && cap.interval == MediaTime(value: 30, timescale: 1))
    }
}
