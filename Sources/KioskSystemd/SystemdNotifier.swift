import CSystemd
import Glibc
import KioskCore

/// libsystemd's sd_notify(3) and sd_watchdog_enabled(3): the service manager is told kiosk is
/// ready, what it plays, that it is alive, and that it stops. libsystemd rather than writing
/// to $NOTIFY_SOCKET by hand: it knows the protocol's details (abstract sockets, credentials,
/// $WATCHDOG_PID) and follows systemd's changes. Outside systemd every call does nothing.
public struct SystemdNotifier: ServiceNotifier {
    public let isListening: Bool
    public let watchdogInterval: Double?

    public init() {
        let socket = getenv("NOTIFY_SOCKET")
        isListening = socket != nil && socket!.pointee != 0
        var microseconds: UInt64 = 0
        // > 0 only when the watchdog is on and meant for this process ($WATCHDOG_PID).
        if sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 {
            watchdogInterval = Double(microseconds) / 1_000_000
        } else {
            watchdogInterval = nil
        }
    }

    public func send(_ notifications: [ServiceNotification]) {
        guard isListening, !notifications.isEmpty else { return }
        let text = notifications.map(\.assignment).joined(separator: "\n")
        // A failed notify changes nothing for playback; systemd then decides (start timeout,
        // watchdog), so the result is not acted on.
        _ = sd_notify(0, text)
    }
}
