import Foundation
import KioskCore
import Logging
import SystemPackage

/// Home Assistant's screen image (`mqtt.discovery` with `mqtt.screen_interval`): what is on
/// screen, taken as the control socket's `screenshot` takes it (the buffer last flipped, or the
/// display's own writeback), published as a PNG, retained, on `kiosk/<name>/screen` every
/// interval while the broker has kiosk connected, and soon after each connection. Its own thread:
/// the PNG is encoded there, never on the presenter's or the bridge's.
package final class FleetScreenPublisher: @unchecked Sendable {
    // Safe to share: immutable after init; `thread` is thread-safe.
    private let interval: Double
    private let topic: String
    private let shoot: @Sendable (String) throws -> Void
    private let publish: @Sendable (_ topic: String, _ bytes: [UInt8]) -> Void
    private let connection: @Sendable () -> (connected: Bool, serial: Int)
    private let logger: Logger
    /// A folder of kiosk's own (mkdtemp, mode 0700): no other user can put a link where the
    /// PNG is written.
    private let folder: String?
    private let thread = StoppableThread(name: "kiosk-mqtt-screen")

    /// `shoot`: writes a PNG of the screen at the path it is given (`ControlledPlayer.saveScreenshot`).
    /// `connection`: whether the broker has kiosk now, and a number that grows with each
    /// connection (a reconnect between two looks is still a new connection).
    package init(interval: Double, topic: String, directory: String = NSTemporaryDirectory(),
                 shoot: @escaping @Sendable (String) throws -> Void,
                 publish: @escaping @Sendable (_ topic: String, _ bytes: [UInt8]) -> Void,
                 connection: @escaping @Sendable () -> (connected: Bool, serial: Int), logger: Logger) {
        self.interval = interval
        self.topic = topic
        self.shoot = shoot
        self.publish = publish
        self.connection = connection
        self.logger = logger
        var template = Array(((directory as NSString).appendingPathComponent("kiosk-screen-XXXXXX")).utf8CString)
        folder = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
        if folder == nil { logger.warning("mqtt: screen image: no folder of its own in \(directory): \(Errno(rawValue: errno)); none is published") }
    }

    /// A publisher never started keeps its folder until it goes (a running thread holds it and
    /// removes the folder as it ends): months of restarts must not fill /tmp with empty ones.
    deinit {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    private var path: String? { folder.map { ($0 as NSString).appendingPathComponent("screen.png") } }

    package func start() {
        guard let folder else { return }
        thread.start { [self] in
            var published = -1
            var next = 0.0
            let clock = MonotonicClock()
            while !thread.shouldStop {
                let now = connection()
                // A new connection gets a picture at once (the broker may have lost the retained one).
                if now.connected && (now.serial != published || clock.now() >= next) {
                    // A picture that could not be taken (nothing on screen yet: the broker
                    // answered before the first frame) is tried again in 5 s, not an interval later.
                    let sent = publishOnce()
                    published = now.serial
                    next = clock.now() + (sent ? interval : min(interval, 5))
                }
                thread.sleep(seconds: 1)
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Asks the thread to end and waits at most 2 s: a screenshot the stopping player no longer
    /// answers (up to 10 s) must not hold kiosk's stop past systemd's TimeoutStopSec.
    package func stop() { thread.stop(timeout: 2) }

    /// One screenshot published now; a failure is one line at debug level (a screen switched
    /// off has no picture to take, and that is not news every five minutes).
    @discardableResult
    package func publishOnce() -> Bool {
        guard let path else { return false }
        do {
            try shoot(path)
            guard let data = FileManager.default.contents(atPath: path) else { throw FleetSetupError("\(path) was not written") }
            publish(topic, [UInt8](data))
            return true
        } catch {
            logger.debug("mqtt: screen image: \(error)")
            return false
        }
    }
}
