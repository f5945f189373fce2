import CKioskShim
import Logging

/// Routes alsa-lib's own messages into swift-log. alsa-lib prints to stderr by default, a line
/// per failed open: with a device retried every 30 s for a month that is a flood. kiosk says
/// what failed in one line of its own, so alsa-lib's lines only show at debug level.
public enum ALSALog {
    // Written once at startup (route) or on the first open, before any other thread logs.
    nonisolated(unsafe) private static var logger = Logger(label: "alsa")
    nonisolated(unsafe) private static var routed = false

    public static func route(to logger: Logger) {
        ALSALog.logger = logger
        routed = true
        kiosk_alsa_log_install { _, line in
            guard let line else { return }
            ALSALog.logger.debug("\(String(cString: line))")
        }
    }

    /// Called before the first ALSA call: keeps alsa-lib off stderr when nobody routed it.
    static func routeIfNeeded() {
        if !routed { route(to: logger) }
    }
}
