import Foundation
import KioskCore
import Logging

/// The screens' cables for `kiosk run`. The kernel broadcasts a uevent when a screen is plugged
/// or unplugged (the bed's vkms, every HDMI/DisplayPort driver); kiosk then asks the driver to
/// look at its connectors (GETCONNECTOR, which may read EDID: only then), and between uevents
/// reads what the driver last found twice a second (no I/O to the screen). Where the uevent
/// socket cannot be had, the twice-a-second reading alone sees what drivers that follow the
/// hotplug line themselves report. A screen unplugged is one line, an alert and the health's
/// `display_connected` false; plugged in again it is one line and its mode is set anew
/// (`VideoOutput.screenReturned`), so a TV swapped or switched off at the wall shows the picture
/// again without a restart. Playback goes on meanwhile.
package final class DisplayConnectionWatcher: @unchecked Sendable {
    // Safe to share: `connections` is only touched with `lock` held; the outputs' calls are
    // thread-safe (VideoOutput.connectorStates, screenReturned).
    private let lock = NSLock()
    private var connections = DisplayConnections()
    /// Returned screens whose mode could not be set yet: tried again at each look.
    private var toSetUp: Set<String> = []
    private let outputs: [VideoOutput]
    private let interval: Double
    private let logger: Logger
    private let thread = StoppableThread(name: "kiosk-display-cables")

    /// `interval`: seconds between readings when no uevent comes.
    package init(outputs: [VideoOutput], interval: Double = 0.5, logger: Logger) {
        self.outputs = outputs
        self.interval = interval
        self.logger = logger
    }

    /// The figures the health reads: whether every screen is connected, and the hotplugs seen.
    package var figures: (connected: Bool?, hotplugs: Int) {
        lock.withLock { (connections.allConnected, connections.hotplugs) }
    }

    /// Reads the connectors once now (the health has its first figures at once), then watches
    /// on a thread of its own; nothing starts for outputs without connectors (headless).
    package func start() {
        guard outputs.contains(where: { !$0.connectorStates(probe: false).isEmpty }) else { return }
        look(probe: false)
        thread.start { [self] in
            // Opened on the thread that reads it (the socket is used from one thread).
            let uevents: KernelUevents?
            do { uevents = try KernelUevents() } catch {
                logger.info("display cables: \(error); reading the connectors' state every \(interval) s instead")
                uevents = nil
            }
            while !thread.shouldStop {
                var hotplug = false
                if let uevents {
                    let arrival = uevents.wait(timeout: interval)
                    hotplug = arrival.lost || arrival.events.contains(where: \.isDisplayHotplug)
                } else {
                    thread.sleep(seconds: interval)
                }
                if !thread.shouldStop { look(probe: hotplug) }
            }
        }
    }

    package func stop() { thread.stop() }

    /// One reading of every connector; changes logged, a returning screen set up again.
    package func look(probe: Bool) {
        let reading = outputs.flatMap { $0.connectorStates(probe: probe) }
        let (changes, retries) = lock.withLock { (connections.update(reading.map { ($0.connector, $0.status) }), toSetUp) }
        for change in changes {
            switch change {
            case .unplugged(let connector):
                lock.withLock { _ = toSetUp.remove(connector) }
                logger.warning("display \(connector): disconnected (its cable or the screen is gone); playback goes on")
            case .returned(let connector):
                screenReturned(connector, again: false)
            }
        }
        for connector in retries where !changes.contains(.unplugged(connector)) { screenReturned(connector, again: true) }
    }

    /// Sets the returning screen's mode; a failure is said once and tried again at each look.
    private func screenReturned(_ connector: String, again: Bool) {
        do {
            var done = ScreenReturn.notMine
            for output in outputs where done == .notMine { done = try output.screenReturned(connector: connector) }
            lock.withLock { _ = toSetUp.remove(connector) }
            let what = switch done {
            case .modeSet: "; its link had failed: the mode is set anew"
            case .linkGood: " (its link is good: the picture goes on)"
            case .switchedOff: " (switched off: the mode is set when it is switched on)"
            case .notMine: ""
            }
            logger.notice("display \(connector): connected again\(what)")
        } catch {
            lock.withLock { _ = toSetUp.insert(connector) }
            if !again { logger.error("display \(connector): connected again, but setting its mode failed: \(error); trying again") }
        }
    }
}
