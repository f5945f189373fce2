/// What kiosk tells the service manager (systemd's sd_notify protocol, `Type=notify`).
public enum ServiceNotification: Sendable, Equatable {
    /// Start-up is done: the first frame or the idle screen is up.
    case ready
    /// One line for `systemctl status`.
    case status(String)
    /// The presenter is making progress: the watchdog may be reset.
    case watchdog
    /// Stopping on request.
    case stopping

    /// The protocol's `KEY=value` form.
    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .status(let text): "STATUS=" + text.split(whereSeparator: \.isNewline).joined(separator: " ")
        case .watchdog: "WATCHDOG=1"
        case .stopping: "STOPPING=1"
        }
    }
}

/// The service manager kiosk runs under, if any.
public protocol ServiceNotifier: Sendable {
    /// True when a service manager listens (systemd set $NOTIFY_SOCKET).
    var isListening: Bool { get }
    /// The watchdog period the manager expects (WatchdogSec=), in seconds; nil when off.
    var watchdogInterval: Double? { get }
    func send(_ notifications: [ServiceNotification])
}
