import Foundation
import KioskCore

/// A watch thread that runs until asked to stop: the file, folder, GPIO and stick watchers'
/// shared start and stop. Their loops block on their own descriptors and `wakeEntry` (a stop
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

    /// The loop's own poll(2) entry for the wake pipe; after it fired, `takeWake()`.
    package var wakeEntry: pollfd { wakePipe.pollEntry }

    /// Empties the wake pipe after a poll found it readable.
    package func takeWake() { wakePipe.drain() }

    /// poll(2)'s timeout for `seconds` (nil: none): see `WakePipe.milliseconds`.
    package func pollTimeout(_ seconds: Double?) -> Int32 {
        WakePipe.milliseconds(seconds, usable: wakePipe.isUsable)
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
