import KioskControl
import KioskPlayer
import Logging

/// The control socket for `run` and `play`.
package enum ControlWiring {
    /// The server listening at `path` (nil: no socket). A path that belongs to another user or
    /// is in use is a configuration error: one line, exit 2, like kiosk.conf's errors.
    package static func open(_ path: String?, logger: Logger) throws -> ControlServer? {
        guard let path else { return nil }
        do {
            return try ControlServer(path: path, logger: logger)
        } catch {
            throw ConfigFailure(text: "kiosk: \(error)")
        }
    }
}
