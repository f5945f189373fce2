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
