import Foundation

/// A condition variable's deadline `seconds` from now, at most a day away. Foundation's
/// `NSCondition.wait(until:)` turns the wait into nanoseconds in an `Int` and traps past ~292
/// years: a still's `duration: 999999999999` in kiosk.conf passed `kiosk check` and stopped
/// `kiosk run` with SIGILL at its first wait. Each wait given one re-checks what it waits for
/// on waking, so the cap only wakes it early; a NaN waits not at all.
public func conditionDeadline(in seconds: Double) -> Date {
    Date(timeIntervalSinceNow: seconds.isNaN ? 0 : min(max(seconds, 0), 86_400))
}
