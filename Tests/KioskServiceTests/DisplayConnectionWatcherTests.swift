import Foundation
import KioskCore
import KioskDisplay
import Logging
import Testing
@testable import KioskService

/// The cable watcher over a screen whose connector a test plugs and unplugs: the figures the
/// health reads, and a returning screen set up again once (not at the first reading, not while
/// it stays, not for another screen's connector).
@Suite struct DisplayConnectionWatcherTests {
    final class PluggableScreen: VideoOutput, @unchecked Sendable {
        // Safe to share: guarded by `lock` (the watcher's thread and the test's both call in).
        private let lock = NSLock()
        private let base = HeadlessDisplay(size: PixelSize(width: 64, height: 48))
        let connector: String
        private var status: ConnectorStatus?
        private var probes = 0
        private var returns: [String] = []
        var switchedOff = false

        init(connector: String, status: ConnectorStatus?) {
            self.connector = connector
            self.status = status
        }

        var size: PixelSize { base.size }
        var refreshInterval: MediaTime { base.refreshInterval }
        func backBuffer() throws -> PixelBuffer { try base.backBuffer() }
        func present(_ buffer: PixelBuffer) throws -> Double { try base.present(buffer) }

        func plug(_ status: ConnectorStatus?) { lock.withLock { self.status = status } }
        var returned: [String] { lock.withLock { returns } }
        var probed: Int { lock.withLock { probes } }

        func connectorStates(probe: Bool) -> [(connector: String, status: ConnectorStatus?)] {
            lock.withLock {
                if probe { probes += 1 }
                return [(connector, status)]
            }
        }

        func screenReturned(connector: String) throws -> ScreenReturn {
            guard connector == self.connector else { return .notMine }
            return lock.withLock {
                returns.append(connector)
                return switchedOff ? .switchedOff : .modeSet
            }
        }
    }

    static let logger = Logger(label: "cable-tests")

    @Test func aScreenUnpluggedIsAnAlertAndPluggedInAgainIsSetUpOnce() {
        let screen = PluggableScreen(connector: "card1-HDMI-A-1", status: .connected)
        let other = PluggableScreen(connector: "card1-HDMI-A-2", status: .connected)
        let watcher = DisplayConnectionWatcher(outputs: [screen, other], logger: Self.logger)
        watcher.look(probe: false)
        #expect(watcher.figures.connected == true && watcher.figures.hotplugs == 0)
        screen.plug(.disconnected)
        watcher.look(probe: true)
        #expect(watcher.figures.connected == false && watcher.figures.hotplugs == 1)
        #expect(screen.returned.isEmpty)
        watcher.look(probe: false)
        #expect(screen.returned.isEmpty, "still unplugged: nothing to set up")
        screen.plug(.connected)
        watcher.look(probe: true)
        #expect(screen.returned == ["card1-HDMI-A-1"])
        #expect(other.returned.isEmpty, "the other screen's cable never moved")
        watcher.look(probe: false)
        #expect(screen.returned.count == 1, "set up once per return")
        #expect(watcher.figures.connected == true && watcher.figures.hotplugs == 2)
    }

    @Test func headlessOutputsStartNoWatchAndGiveNoFigure() {
        let watcher = DisplayConnectionWatcher(outputs: [HeadlessDisplay(size: PixelSize(width: 8, height: 8))], logger: Self.logger)
        watcher.start()
        defer { watcher.stop() }
        #expect(watcher.figures.connected == nil && watcher.figures.hotplugs == 0)
    }

    /// The thread reads the connectors on its own (a hotplug whose uevent was not heard, as on a
    /// driver that follows the hotplug line itself, is seen by the reading between uevents).
    @Test func theWatchThreadSeesAChangeWithoutBeingAsked() throws {
        let screen = PluggableScreen(connector: "card0-DP-1", status: .connected)
        let watcher = DisplayConnectionWatcher(outputs: [screen], interval: 0.05, logger: Self.logger)
        watcher.start()
        defer { watcher.stop() }
        #expect(watcher.figures.connected == true, "read once at the start")
        screen.plug(.disconnected)
        let clock = MonotonicClock()
        let deadline = clock.now() + 30
        while watcher.figures.connected != false, clock.now() < deadline { usleep(20_000) }
        #expect(watcher.figures.connected == false)
        screen.plug(.connected)
        while screen.returned.isEmpty, clock.now() < deadline { usleep(20_000) }
        #expect(screen.returned == ["card0-DP-1"])
    }
}
