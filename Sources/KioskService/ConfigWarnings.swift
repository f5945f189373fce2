import Foundation
import KioskCore
import KioskInput

/// What in a kiosk.conf that loads is still worth a look: `kiosk check` prints these on
/// stderr, `kiosk run` logs them at its start and when a reload brings new ones (an unattended
/// box is read through its journal; nobody runs `check` on it). None stops the file loading.
package enum ConfigWarnings {
    /// In file order: the walker's (a window whose `from` is its `to`, `mqtt.proof_of_play`
    /// alone), overlapping schedule entries, trigger keys this kernel does not know; then the
    /// environment's TZ when the tz database does not know it and kiosk.conf names no zone
    /// (Foundation reads it as UTC without a word: every window off by the zone's offset).
    package static func of(_ config: KioskConfig, tz: String? = ProcessInfo.processInfo.environment["TZ"]) -> [String] {
        var diagnostics = config.scheduleWarnings
        // A key name of the right form that this kernel does not know (KEY_F13 is one, KEY_FOO
        // is not) is legal in the file, since another box may know it, but does nothing here.
        for trigger in config.triggers {
            for key in trigger.keys where EvdevCode.keyCode(named: key) == nil {
                diagnostics.append(ConfigDiagnostic(location: trigger.location, message: "warning: \(key) in trigger '\(trigger.name)' is not a key "
                    + "this system's evdev knows; that key fires nothing (the names are linux/input-event-codes.h's)"))
            }
        }
        var lines = diagnostics.enumerated().sorted { a, b in
            (a.element.line, a.element.column, a.offset) < (b.element.line, b.element.column, b.offset)
        }.map(\.element.description)
        if config.schedule.timezone == nil, let zone = ZoneClock.unknownTZWarning(tz, readAs: config.scheduleClock.zone) {
            lines.append(zone)
        }
        return lines
    }

    /// A warning without its `file:line:column: ` (what it says, wherever the line moved).
    package static func withoutPlace(_ warning: String) -> Substring {
        warning.range(of: "warning: ").map { warning[$0.lowerBound...] } ?? warning[...]
    }
}
