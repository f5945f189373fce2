import KioskCore
import KioskService
import Testing

/// kiosk check's warnings, one list for `check` and for `run`'s journal.
@Suite struct ConfigWarningsTests {
    static func parse(_ text: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: text, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: LocalFileSystem())
    }

    /// The walker's, the trigger keys' and the TZ's, each placed: a key this kernel does not
    /// know came before the window above it (two lists joined, not sorted); the TZ, which is no
    /// line of the file, comes last.
    @Test func everyKindInFileOrderThenTheZone() throws {
        let config = try Self.parse("""
            items: [a.mp4]
            triggers:
              - {name: bell, key: KEY_NOSUCHKEY, item: 0}
            display:
              power:
                - {from: "07:00", to: "07:00"}
            mqtt: {broker: mqtt://10.0.0.5, proof_of_play: true}
            """)
        let warnings = ConfigWarnings.of(config, tz: "Europe/Nowhere")
        #expect(warnings.count == 4, "\(warnings)")
        #expect(warnings.first?.hasPrefix("kiosk.conf:3:5: warning: KEY_NOSUCHKEY in trigger 'bell' is not a key") == true, "\(warnings)")
        #expect(warnings.dropFirst().first?.hasPrefix("kiosk.conf:6:27: warning: 'from' and 'to' in display.power window 1") == true, "\(warnings)")
        #expect(warnings.dropFirst(2).first?.hasPrefix("kiosk.conf:7:") == true && warnings[2].contains("proof_of_play"), "\(warnings)")
        #expect(warnings.last == "warning: TZ is 'Europe/Nowhere', which the tz database does not know; times are read in "
                + "\(config.scheduleZoneName) (set TZ to an IANA name like Europe/Berlin, or schedule.timezone in kiosk.conf)")
    }

    /// What a reload compares: the words, not the place (a line added above moves a warning).
    @Test func aWarningWithoutItsPlace() {
        #expect(ConfigWarnings.withoutPlace("kiosk.conf:3:5: warning: KEY_X in trigger 'a'") == "warning: KEY_X in trigger 'a'")
        #expect(ConfigWarnings.withoutPlace("warning: TZ is 'X'") == "warning: TZ is 'X'")
    }

    /// A file without any, on a box whose TZ is a known name, a file (systemd's :/etc/localtime)
    /// or unset: nothing to say. With schedule.timezone set, a bad TZ does not matter.
    @Test func nothingWhenThereIsNothing() throws {
        let plain = try Self.parse("items: [a.mp4]\n")
        for tz in ["Europe/Berlin", ":/etc/localtime", "", nil] as [String?] {
            #expect(ConfigWarnings.of(plain, tz: tz).isEmpty, "TZ \(tz ?? "unset")")
        }
        let zoned = try Self.parse("items: [a.mp4]\nschedule: {timezone: Europe/Berlin}\n")
        #expect(ConfigWarnings.of(zoned, tz: "Europe/Nowhere").isEmpty)
    }
}
