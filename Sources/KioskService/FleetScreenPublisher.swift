import Foundation
import KioskCore
import Logging

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
    private let isConnected: @Sendable () -> Bool
    private let logger: Logger
    private let path: String
    private let thread = StoppableThread(name: "kiosk-mqtt-screen")

    /// `shoot`: writes a PNG of the screen at the path it is given (`ControlledPlayer.saveScreenshot`).
    package init(interval: Double, topic: String, directory: String = NSTemporaryDirectory(),
                 shoot: @escaping @Sendable (String) throws -> Void,
                 publish: @escaping @Sendable (_ topic: String, _ bytes: [UInt8]) -> Void,
                 isConnected: @escaping @Sendable () -> Bool, logger: Logger) {
        self.interval = interval
        self.topic = topic
        self.shoot = shoot
        self.publish = publish
        self.isConnected = isConnected
        self.logger = logger
        path = (directory as NSString).appendingPathComponent("kiosk-screen-\(getpid()).png")
    }

    package func start() {
        thread.start { [self] in
            var wasConnected = false
            var next = 0.0
            let clock = MonotonicClock()
            while !thread.shouldStop {
                let connected = isConnected()
                // A new connection gets a picture at once (the broker may have lost the retained one).
                if connected && (!wasConnected || clock.now() >= next) {
                    publishOnce()
                    next = clock.now() + interval
                }
                wasConnected = connected
                thread.sleep(seconds: 1)
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    package func stop() { thread.stop(timeout: 12) }

    /// One screenshot published now; a failure is one line at debug level (a screen switched
    /// off has no picture to take, and that is not news every five minutes).
    package func publishOnce() {
        do {
            try shoot(path)
            guard let data = FileManager.default.contents(atPath: path) else { throw FleetSetupError("\(path) was not written") }
            publish(topic, [UInt8](data))
        } catch {
            logger.debug("mqtt: screen image: \(error)")
        }
    }
}
