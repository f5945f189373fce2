import Foundation

/// The control socket's `display_power` argument: hold the screen on or off until told
/// otherwise, or `auto`, follow `display.power` again.
public enum DisplayPowerMode: String, Sendable, Equatable, CaseIterable {
    case on, off, auto

    /// Whether the screen is on, given what the schedule says now.
    public func powerOn(scheduled: Bool) -> Bool {
        switch self {
        case .on: true
        case .off: false
        case .auto: scheduled
        }
    }
}

extension ScheduleDryRun {
    /// The control socket's `schedule` property: the moment, the zone, what the schedule chose
    /// (`state`, as `kiosk schedule --json` prints it), the power mode the socket set and the
    /// screen's power that follows, and the next change (null within 400 days):
    ///
    ///     {"at": "...", "timezone": "Europe/Berlin",
    ///      "state": {"playlist": "lunch", "entry": "lunch", "display_power": "on"},
    ///      "display_power_mode": "auto", "display_power": "on",
    ///      "next_change": {"at": "...", "utc_offset": "+01:00", "playlist": "default",
    ///                      "entry": null, "display_power": "off"}}
    public func status(powerMode: DisplayPowerMode) -> ControlValue {
        .object([
            ("at", .string(ScheduleTimeText.iso8601(at, clock: clock))),
            ("timezone", .string(zoneName)),
            ("state", stateObject(state)),
            ("display_power_mode", .string(powerMode.rawValue)),
            ("display_power", .string(powerMode.powerOn(scheduled: state.powerOn) ? "on" : "off")),
            ("next_change", nextChange.map { timed($0.at, stateObject($0.state)) } ?? .null),
        ])
    }
}
