import Foundation
#if canImport(Glibc)
import Glibc
#endif
import KioskCore

/// A watch thread that runs until asked to stop: the file, folder, GPIO and stick watchers'
/// shared start and stop. Their loops block in `poll` on their own descriptors and a wake pipe (a stop
/// and a `nudge` write to it), so an idle box is not woken to look (a quarter-second poll per
/// watcher was ~20 wake-ups a second with nothing happening); they end once `shouldStop`.
package final class StoppableThread: @unchecked Sendable {
    // Safe to share: `stopRequested` is guarded by `lock`; the worker and the pipe are thread-safe.
    private let lock = NSLock()
    private var stopRequested = false
    private let worker: WorkerThread
    private let wakePipe = WakePipe()

    package init(name: String) { worker = WorkerThread(name: name) }

    package func start(_ body: @escaping @Sendable () -> Void) { worker.start(body) }

    /// Asks the loop to end and waits up to `timeout` seconds for it.
    package func stop(timeout: Double = 2) {
        let started = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return worker.hasStarted && !stopRequested
        }
        wakePipe.wake()
        if started { _ = worker.join(timeout: timeout) }
    }

    package var shouldStop: Bool { lock.withLock { stopRequested } }

    /// Wakes the loop without stopping it: what it follows changed (a reload).
    package func nudge() { wakePipe.wake() }

    /// Blocks until one of `descriptors` is ready, a stop or a nudge, or `seconds` pass (nil:
    /// no limit; without a pipe at most a fifth of a second, so a stop is still seen); true when
    /// one of `descriptors` is ready (read their `revents`, all 0 otherwise). The wake is taken
    /// here. One poll(2) for the watchers, so none of them handles the wake pipe itself.
    @discardableResult
    package func poll(_ descriptors: inout [pollfd], seconds: Double?) -> Bool {
        descriptors.append(wakePipe.pollEntry)
        defer { descriptors.removeLast() }
        let timeout = WakePipe.milliseconds(seconds, usable: wakePipe.isUsable)
        let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), timeout)
        guard ready > 0 else {
            // A timeout sets every revents to 0; an error (EINTR) leaves them undefined.
            for index in descriptors.indices { descriptors[index].revents = 0 }
            return false
        }
        if descriptors[descriptors.count - 1].revents != 0 { wakePipe.drain() }
        return descriptors.dropLast().contains { $0.revents != 0 }
    }

    /// Sleeps `seconds`, returning early on a stop or a nudge (without a pipe, on a stop only,
    /// seen within a fifth of a second).
    package func sleep(seconds: Double) {
        let end = MonotonicClock().now() + seconds
        while !shouldStop {
            let left = end - MonotonicClock().now()
            if left <= 0 || wakePipe.wait(seconds: left) { return }
        }
    }
}
