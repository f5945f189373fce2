import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A trigger's `gpio: {chip, line, edge, debounce, active_low}`: what a valid one reads as, and
/// each bad value's one diagnostic at its line:column (the table; `ConfigErrorTests` runs it).

private let items = "items: [a.mp4, b.mp4]\nplaylists:\n  promo: [c.mp4]\n"
/// A trigger `button` (item 0) whose gpio map, on line 7, holds `inner` from column 12.
private func gpio(_ inner: String) -> String {
    items + "triggers:\n  - name: button\n    item: 0\n    gpio: {\(inner)}\n"
}

private func parse(_ yaml: String) throws -> KioskConfig {
    try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                           fileSystem: FakeFileSystem(files: []))
}

let gpioTriggerConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "gpio is a list", yaml: items + "triggers:\n  - name: button\n    item: 0\n    gpio: [gpiochip0, 3]\n",
                    line: 7, column: 11, fragment: "'gpio' in trigger 1 is a list; expected a map like {chip: gpiochip0, line: 3"),
    ConfigErrorCase(name: "gpio is empty", yaml: items + "triggers:\n  - name: button\n    item: 0\n    gpio:\n",
                    line: 7, column: 10, fragment: "'gpio' in trigger 1 is empty; expected a map"),
    ConfigErrorCase(name: "gpio without chip", yaml: gpio("line: 3"), line: 7, column: 11,
                    fragment: "gpio of trigger 1 has no 'chip'; expected chip: gpiochip0 (a name, /dev/gpiochip0 or the chip's label"),
    ConfigErrorCase(name: "gpio without line", yaml: gpio("chip: gpiochip0"), line: 7, column: 11,
                    fragment: "gpio of trigger 1 has no 'line'; expected line: N (the line's offset on the chip, from 0) or line: NAME"),
    ConfigErrorCase(name: "gpio misspelt key", yaml: gpio("chip: gpiochip0, line: 3, edg: rising"), line: 7, column: 38,
                    fragment: "unknown key 'edg' in gpio of trigger 1; expected one of: chip, line, edge, debounce, active_low (did you mean 'edge'?)"),
    ConfigErrorCase(name: "gpio chip a number", yaml: gpio("chip: 0, line: 3"), line: 7, column: 18,
                    fragment: "'chip' in gpio of trigger 1 is 0; expected a chip's name (gpiochip0), its path (/dev/gpiochip0) or its label"),
    ConfigErrorCase(name: "gpio chip a relative path", yaml: gpio("chip: dev/gpiochip0, line: 3"), line: 7, column: 18,
                    fragment: "'chip' in gpio of trigger 1 is the string 'dev/gpiochip0', a relative path; expected a chip's name"),
    ConfigErrorCase(name: "gpio chip empty text", yaml: gpio("chip: \"\", line: 3"), line: 7, column: 18,
                    fragment: "'chip' in gpio of trigger 1 is the string ''; expected a chip's name"),
    ConfigErrorCase(name: "gpio chip a map", yaml: gpio("chip: {name: a}, line: 3"), line: 7, column: 18,
                    fragment: "'chip' in gpio of trigger 1 is a map; expected a chip's name"),
    ConfigErrorCase(name: "gpio line negative", yaml: gpio("chip: gpiochip0, line: -1"), line: 7, column: 35,
                    fragment: "'line' in gpio of trigger 1 is -1; expected the line's offset on the chip (a whole number from 0 to 65535) or its name"),
    ConfigErrorCase(name: "gpio line a fraction", yaml: gpio("chip: gpiochip0, line: 1.5"), line: 7, column: 35,
                    fragment: "'line' in gpio of trigger 1 is 1.5; expected the line's offset"),
    ConfigErrorCase(name: "gpio line too large", yaml: gpio("chip: gpiochip0, line: 70000"), line: 7, column: 35,
                    fragment: "'line' in gpio of trigger 1 is 70000; expected the line's offset on the chip (a whole number from 0 to 65535)"),
    ConfigErrorCase(name: "gpio line a list", yaml: gpio("chip: gpiochip0, line: [1, 2]"), line: 7, column: 35,
                    fragment: "'line' in gpio of trigger 1 is a list; expected the line's offset"),
    ConfigErrorCase(name: "gpio bad edge", yaml: gpio("chip: gpiochip0, line: 3, edge: down"), line: 7, column: 44,
                    fragment: "'edge' in gpio of trigger 1 is the string 'down'; expected one of: rising, falling, both"),
    ConfigErrorCase(name: "gpio debounce too long", yaml: gpio("chip: gpiochip0, line: 3, debounce: 2"), line: 7, column: 48,
                    fragment: "'debounce' in gpio of trigger 1 is 2; expected seconds from 0 to 1 (like 0.05; 0: every edge fires)"),
    ConfigErrorCase(name: "gpio debounce negative", yaml: gpio("chip: gpiochip0, line: 3, debounce: -0.1"), line: 7, column: 48,
                    fragment: "'debounce' in gpio of trigger 1 is -0.1; expected seconds from 0 to 1"),
    ConfigErrorCase(name: "gpio debounce text", yaml: gpio("chip: gpiochip0, line: 3, debounce: \"0.05\""), line: 7, column: 48,
                    fragment: "'debounce' in gpio of trigger 1 is the string '0.05'; expected seconds from 0 to 1"),
    ConfigErrorCase(name: "gpio debounce not a number", yaml: gpio("chip: gpiochip0, line: 3, debounce: .nan"), line: 7, column: 48,
                    fragment: "'debounce' in gpio of trigger 1 is .nan; expected seconds from 0 to 1"),
    ConfigErrorCase(name: "gpio active_low not a bool", yaml: gpio("chip: gpiochip0, line: 3, active_low: 2"), line: 7, column: 50,
                    fragment: "'active_low' in gpio of trigger 1 is 2; expected true or false"),
    ConfigErrorCase(name: "gpio line in two triggers",
                    yaml: items + "triggers:\n  - {name: a, item: 0, gpio: {chip: gpiochip0, line: 3}}\n"
                        + "  - {name: b, item: 1, gpio: {chip: gpiochip0, line: 3, edge: rising}}\n",
                    line: 6, column: 5, fragment: "gpiochip0 line 3 fires both trigger 'a' (at 5:5) and trigger 'b'; expected each GPIO line in one trigger"),
]

@Suite("Trigger GPIO config")
struct TriggerGPIOConfigTests {
    @Test func everyFormReadsWithItsDefaults() throws {
        let config = try parse(items + """
            triggers:
              - name: button
                gpio: {chip: gpiochip0, line: 3}
                item: 1
              - name: motion
                gpio: {chip: /dev/gpiochip1, line: PIR_OUT, edge: rising, debounce: 0, active_low: true}
                key: KEY_F2
                zone: [0, 0, 100, 100]
                playlist: promo
              - {name: labelled, gpio: {chip: pinctrl-bcm2711, line: "17", edge: Both, debounce: 1}, item: 0}
              - {name: keyed, key: KEY_F1, item: 0}
            """)
        let button = try #require(config.triggers.first?.gpio)
        #expect(button == GPIOTriggerLine(chip: "gpiochip0", line: .offset(3), edge: .falling, debounce: 0.05, activeLow: false),
                "falling (a button pulls its pin to ground) and 0.05 s by default")
        #expect(button.description == "gpiochip0 line 3")
        let motion = config.triggers[1]
        #expect(motion.gpio == GPIOTriggerLine(chip: "/dev/gpiochip1", line: .name("PIR_OUT"), edge: .rising, debounce: 0, activeLow: true))
        #expect(motion.keys == ["KEY_F2"] && motion.zone != nil, "a trigger may have gpio, key and zone together")
        // A quoted number is a line's name, as the board may call a line "17".
        #expect(config.triggers[2].gpio == GPIOTriggerLine(chip: "pinctrl-bcm2711", line: .name("17"), edge: .both, debounce: 1))
        #expect(config.triggers[3].gpio == nil)
    }

    @Test func oneMapCanHoldSeveralMistakesEachSaidOnce() {
        let diagnostics = parseDiagnostics(gpio("chip: 0, line: -1, edge: down, debounce: 5"))
        #expect(diagnostics.count == 4, "\(diagnostics)")
        #expect(diagnostics.allSatisfy { $0.file == "kiosk.conf" && $0.line == 7 })
    }

    /// The annotated kiosk.conf's triggers, uncommented, read as its comments say.
    @Test func theAnnotatedExampleReads() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# triggers:"))
        let config = try parse("items: [a.mp4, b.mp4, c.mp4]\nplaylists:\n  lunch: [c.mp4]\n" + section)
        let button = try #require(config.triggers.first { $0.name == "button" })
        #expect(button.gpio == GPIOTriggerLine(chip: "gpiochip0", line: .offset(3), edge: .falling, debounce: 0.05))
        #expect(button.content == .item(2))
    }

    /// A reload that changes only the debounce is a change of the triggers (the line is requested again).
    @Test func aReloadSeesAChangedLine() throws {
        let old = try parse(gpio("chip: gpiochip0, line: 3"))
        let changed = try parse(gpio("chip: gpiochip0, line: 3, debounce: 0.2"))
        #expect(ConfigChanges(from: old, to: old).isEmpty)
        #expect(ConfigChanges(from: old, to: changed).parts == [.triggers])
    }
}
