import Foundation
import KioskCore

/// A watch thread that runs until asked to stop: the file, folder and stick watchers' shared
/// start and stop. Their loops wake at least every quarter second and end once `shouldStop`.
package final class StoppableThread: @unchecked Sendable {
    // Safe to share: `stopRequested` is guarded by `lock`; the worker is thread-safe.
    private let lock = NSLock()
    private var stopRequested = false
    private let worker: WorkerThread

    package init(name: String) { worker = WorkerThread(name: name) }

    package func start(_ body: @escaping @Sendable () -> Void) { worker.start(body) }

    /// Asks the loop to end and waits up to `timeout` seconds for it.
    package func stop(timeout: Double = 2) {
        let started = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return worker.hasStarted && !stopRequested
        }
        if started { _ = worker.join(timeout: timeout) }
    }

    package var shouldStop: Bool { lock.withLock { stopRequested } }

    /// Sleeps `seconds` in tenths, returning early once a stop is asked for.
    package func sleep(seconds: Double) {
        var left = seconds
        while left > 0, !shouldStop {
            usleep(100_000)
            left -= 0.1
        }
    }
}
