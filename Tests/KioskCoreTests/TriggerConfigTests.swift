import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf's `triggers:`: what a valid list reads as, and each bad value's one diagnostic at
/// its line:column (the table below; `ConfigErrorTests` runs it with its own).

private let items = "items: [a.mp4, b.mp4]\nplaylists:\n  promo: [c.mp4]\n"
/// `items`, `playlists` and a triggers list with one trigger whose body is `body`.
private func trigger(_ body: String) -> String { items + "triggers:\n  - {\(body)}\n" }

private func parse(_ yaml: String) throws -> KioskConfig {
    try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                           fileSystem: FakeFileSystem(files: []))
}

let triggerConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "triggers is a map", yaml: items + "triggers: {name: a}\n", line: 4, column: 11,
                    fragment: "'triggers' is a map; expected a list (lines starting with '- ') of triggers"),
    ConfigErrorCase(name: "no name", yaml: trigger("item: 0"), line: 5, column: 5,
                    fragment: "trigger 1 has no 'name'; expected name:"),
    ConfigErrorCase(name: "misspelt key", yaml: trigger("name: a, item: 0, then: resume, durng_trigger: ignore"), line: 5, column: 38,
                    fragment: "unknown key 'durng_trigger' in trigger 1; expected one of: name, key, zone, gpio, item, items, playlist, command, then, during_trigger (did you mean 'during_trigger'?)"),
    ConfigErrorCase(name: "nothing to play", yaml: trigger("name: a, key: KEY_F1"), line: 5, column: 5,
                    fragment: "trigger 'a' plays nothing; expected exactly one of item: N"),
    ConfigErrorCase(name: "two contents", yaml: trigger("name: a, item: 0, playlist: promo"), line: 5, column: 24,
                    fragment: "trigger 'a' has both 'item' (at 5:15) and 'playlist'; expected exactly one"),
    ConfigErrorCase(name: "unknown playlist", yaml: trigger("name: a, playlist: promos"), line: 5, column: 25,
                    fragment: "'playlist' in trigger 1 is 'promos', which no playlist defines; expected one of: default, promo (did you mean 'promo'?)"),
    ConfigErrorCase(name: "negative item", yaml: trigger("name: a, item: -1"), line: 5, column: 21,
                    fragment: "'item' in trigger 1 is -1; expected a whole number from 0 to 1000000 (the default playlist's entry, counted from 0)"),
    ConfigErrorCase(name: "not a key name", yaml: trigger("name: a, key: f1, item: 0"), line: 5, column: 20,
                    fragment: "'f1' in trigger 1.key is not an evdev key name; expected a name like KEY_F1"),
    ConfigErrorCase(name: "a key input.keys binds", yaml: items + "input: {keys: {mute: [KEY_F1]}}\ntriggers:\n  - {name: a, key: KEY_F1, item: 0}\n",
                    line: 6, column: 20, fragment: "KEY_F1 is bound to both trigger 'a' and input.keys.mute; expected one of them"),
    ConfigErrorCase(name: "a key in two triggers", yaml: items + "triggers:\n  - {name: a, key: KEY_F1, item: 0}\n  - {name: b, key: [KEY_F2, KEY_F1], item: 1}\n",
                    line: 6, column: 5, fragment: "KEY_F1 fires both trigger 'a' (at 5:5) and trigger 'b'; expected each key in one trigger"),
    ConfigErrorCase(name: "a name twice", yaml: items + "triggers:\n  - {name: a, item: 0}\n  - {name: a, item: 1}\n",
                    line: 6, column: 5, fragment: "trigger name 'a' is used twice (first at 5:5)"),
    ConfigErrorCase(name: "zone of three", yaml: trigger("name: a, item: 0, zone: [0, 0, 10]"), line: 5, column: 30,
                    fragment: "'zone' of trigger 'a' is a list of 3; expected [x, y, width, height]"),
    ConfigErrorCase(name: "zone of no width", yaml: trigger("name: a, item: 0, zone: [0, 0, 0, 10]"), line: 5, column: 37,
                    fragment: "width in the zone of trigger 'a' is 0; expected more than 0 pixels or percent"),
    ConfigErrorCase(name: "zone percent over 100", yaml: trigger("name: a, item: 0, zone: [\"10%\", 0, \"101%\", 10]"), line: 5, column: 41,
                    fragment: "width in the zone of trigger 'a' is the string '101%'; expected more than 0 pixels or percent (0% to 100%)"),
    ConfigErrorCase(name: "zone past the edge", yaml: trigger("name: a, item: 0, zone: [0, \"70%\", 10, \"40%\"]"), line: 5, column: 30,
                    fragment: "the zone of trigger 'a', [0, 70%, 10, 40%], reaches past the screen's height (110%)"),
    ConfigErrorCase(name: "bad then", yaml: trigger("name: a, item: 0, then: later"), line: 5, column: 30,
                    fragment: "'then' in trigger 1 is the string 'later'; expected one of: resume, restart"),
    ConfigErrorCase(name: "bad during_trigger", yaml: trigger("name: a, item: 0, during_trigger: queue"), line: 5, column: 40,
                    fragment: "'during_trigger' in trigger 1 is the string 'queue'; expected one of: replace, ignore"),
    ConfigErrorCase(name: "empty items", yaml: trigger("name: a, items: []"), line: 5, column: 22,
                    fragment: "no items: 'trigger 'a' items' is an empty list"),
    ConfigErrorCase(name: "unknown command", yaml: trigger("name: a, command: [sync_nwo]"), line: 5, column: 24,
                    fragment: "'command' of trigger 'a': unknown command \"sync_nwo\": use one of play, pause"),
    ConfigErrorCase(name: "command with a bad argument", yaml: trigger("name: a, command: [goto, two]"), line: 5, column: 24,
                    fragment: "'command' of trigger 'a': goto"),
    ConfigErrorCase(name: "command firing a trigger", yaml: trigger("name: a, command: [trigger, b]"), line: 5, column: 24,
                    fragment: "'command' of trigger 'a' is 'trigger', which a trigger cannot run"),
    ConfigErrorCase(name: "command and item", yaml: trigger("name: a, item: 0, command: sync_now"), line: 5, column: 24,
                    fragment: "trigger 'a' has both 'item' (at 5:15) and 'command'; expected exactly one"),
]

@Suite("Trigger config")
struct TriggerConfigTests {
    @Test func aCommandTriggerRunsARowOfTheCommandTable() throws {
        let config = try parse(items + """
            triggers:
              - {name: fetch, key: KEY_F5, command: sync_now}
              - {name: third, gpio: {chip: gpiochip0, line: 4}, command: [goto, 2]}
              - {name: dark, command: [display_power, "off"]}
            """)
        #expect(config.triggers.map(\.content) == [.command(["sync_now"]), .command(["goto", "2"]), .command(["display_power", "off"])])
        let set = TriggerSet(config.triggers, defaultEntries: [], playlists: [:]) { _ in ([], []) }
        #expect(set.triggers.allSatisfy { $0.request == nil && $0.problem == nil }, "nothing to play, and nothing wrong")
        #expect(set.trigger(named: "third")?.commandLine == #"{"command":["goto","2"]}"#)
        #expect(try ControlRequestParser.parse(set.trigger(named: "third")!.commandLine!).command == .request(.goto(index: 2)))
        #expect(set.trigger(named: "fetch")?.commandLine == #"{"command":["sync_now"]}"#)
    }

    @Test func everyFormReadsWithItsDefaults() throws {
        let config = try parse(items + """
            triggers:
              - {name: welcome, key: KEY_F1, item: 1}
              - name: promo
                key: [KEY_F2, BTN_0]
                zone: ["80%", "0%", "20%", "25%"]
                playlist: promo
                then: restart
                during_trigger: ignore
              - {name: own, items: [x.mp4, clips/], zone: [0, 400, 200, 80.5]}
              - {name: next-key, key: KEY_N, item: 0}
            """)
        #expect(config.triggers.map(\.name) == ["welcome", "promo", "own", "next-key"])
        let welcome = config.triggers[0]
        #expect(welcome.keys == ["KEY_F1"] && welcome.zone == nil && welcome.content == .item(1))
        #expect(welcome.then == .resume && welcome.duringTrigger == .replace, "the defaults")
        #expect(welcome.location.line == 5)
        let promo = config.triggers[1]
        #expect(promo.keys == ["KEY_F2", "BTN_0"] && promo.content == .playlist("promo"))
        #expect(promo.zone == TouchZone(x: .percent(80), y: .percent(0), width: .percent(20), height: .percent(25)))
        #expect(promo.play == TriggerPlay(name: "promo", then: .restart, duringTrigger: .ignore))
        let own = config.triggers[2]
        #expect(own.zone == TouchZone(x: .pixels(0), y: .pixels(400), width: .pixels(200), height: .pixels(80.5)))
        guard case .items(let list) = own.content else {
            Issue.record("own plays \(own.content)")
            return
        }
        #expect(list.map(\.source) == [.file("/srv/kiosk/x.mp4"), .directory("/srv/kiosk/clips")])
        // KEY_N is `next` by default: the trigger takes it over, and the key map is left as it is
        // (input looks at triggers first).
        #expect(config.triggers[3].keys == ["KEY_N"])
        #expect(config.input.keys.action(forKey: "KEY_N") == .next)
    }

    @Test func aFileWithoutTriggersHasNone() throws {
        #expect(try parse(items).triggers.isEmpty)
        #expect(try parse(items + "triggers:\n").triggers.isEmpty)
    }

    /// A reload names the part; moving a trigger down a line changes nothing.
    @Test func aReloadSeesWhatATriggerSaysNotWhereItIsWritten() throws {
        let old = try parse(trigger("name: a, key: KEY_F1, item: 0"))
        let moved = try parse("\n" + trigger("name: a, key: KEY_F1, item: 0"))
        let changed = try parse(trigger("name: a, key: KEY_F1, item: 1"))
        #expect(ConfigChanges(from: old, to: moved).isEmpty)
        #expect(ConfigChanges(from: old, to: changed).parts == [.triggers])
        #expect(ConfigPart.triggers.application == .reopened)
        #expect(changed.appliedLive(to: old).triggers == changed.triggers)
    }
}
