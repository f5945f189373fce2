import Foundation
import Glibc
import KioskCore
import Logging

/// Touch and keys for the player: one thread polls every wanted evdev device, the hotplug
/// watch on /dev/input and a wake pipe; it turns events into gestures and key actions and
/// those into player requests. Devices plugged in later are opened, unplugged ones dropped.
/// Never throws and never stops the player: a device that fails is logged and left out.
public final class InputService: @unchecked Sendable {
    // Safe to share: `reader` is handed to the input thread at `start()` and touched only
    // there afterwards; `stopRequested` is guarded by `lock`, and `start` checks and starts
    // the worker with it held; the pipe's fds are immutable after init.
    private let reader: InputReader
    private let lock = NSLock()
    private let worker = WorkerThread(name: "kiosk-input", qos: .userInteractive)
    private var stopRequested = false
    /// Wakes the input thread for the stop (without a pipe, its poll looks at `stop()` often).
    private let wakePipe = WakePipe()

    /// - Parameters:
    ///   - config: kiosk.conf's `input` section (enabled is the caller's business).
    ///   - screen: the display touches map to.
    ///   - directory: where device nodes live (tests may point elsewhere).
    ///   - triggers: kiosk.conf's triggers, fired by their keys and zones.
    ///   - runCommand: carries out a command trigger's line as the control socket would (nil:
    ///     done, else why not).
    public init(config: InputConfig, screen: InputScreen, player: PlayerRequestSink, logger: Logger,
                directory: String = "/dev/input", triggers: TriggerSet = TriggerSet(),
                runCommand: (@Sendable (String) -> String?)? = nil) {
        reader = InputReader(config: config, screen: screen, player: player, logger: logger, directory: directory,
                             triggers: triggers, runCommand: runCommand)
    }

    deinit { stop() }

    /// Opens the devices present now and starts the input thread.
    public func start() {
        lock.lock(); defer { lock.unlock() }
        guard !worker.hasStarted, !stopRequested else { return }
        let wake = wakePipe
        worker.start(handingOver: reader) { [weak self] reader in
            reader.scanAtStart()
            while self?.shouldContinue ?? false {
                Self.pollOnce(reader, wake: wake)
            }
            reader.closeAll()
        }
    }

    /// Stops the thread (within `timeout` seconds) and closes the devices, releasing grabs.
    /// Returns false if the thread did not end in time.
    @discardableResult
    public func stop(timeout: Double = 2) -> Bool {
        let started: Bool = lock.withLock {
            let started = worker.hasStarted && !stopRequested
            stopRequested = true
            return started
        }
        guard started else { return true }
        wakePipe.wake()
        return worker.join(timeout: timeout)   // a second stop() is let through too
    }

    private var shouldContinue: Bool { lock.withLock { !stopRequested } }

    /// One poll over the wake pipe, the hotplug watch and the devices, and what it found.
    private static func pollOnce(_ reader: InputReader, wake: WakePipe) {
        let paths = Array(reader.devices.keys)
        var fds = [wake.pollEntry]
        fds.append(pollfd(fd: reader.hotplug?.fd.rawValue ?? -1, events: Int16(POLLIN), revents: 0))
        fds += paths.map { pollfd(fd: reader.devices[$0]!.device.fd.rawValue, events: Int16(POLLIN), revents: 0) }
        // A millisecond more: deadlines are released strictly after them. No pipe: the timeout
        // looks at stop() often.
        let timeout = WakePipe.milliseconds(reader.nextDeadline.map { $0 - MonotonicClock().now() + 0.001 },
                                            usable: wake.isUsable)
        let ready = poll(&fds, nfds_t(fds.count), timeout)
        if ready < 0 && errno != EINTR {
            // Should not happen with valid fds; do not spin if it does.
            usleep(100_000)
        }
        if fds[0].revents != 0 {
            wake.drain()
            return
        }
        if fds[1].revents & Int16(POLLIN) != 0, let hotplug = reader.hotplug {
            let now = MonotonicClock().now()
            for change in hotplug.readChanges() { reader.handle(change, now: now) }
        }
        for (index, path) in paths.enumerated() {
            let revents = fds[index + 2].revents
            guard revents != 0 else { continue }
            if revents & Int16(POLLIN) != 0 {
                reader.readDevice(path)
            } else if revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                reader.close(path, reason: "unplugged")
            }
        }
        reader.advance(to: MonotonicClock().now())
    }
}
