import Foundation

/// The threads that must be out of their libraries before the process ends.
///
/// Why: `exit` runs the libraries' static destructors while other threads still run. libsrt
/// (C++, reached through FFmpeg's `srt://`) tears its socket table down in one; a demux thread
/// still inside `srt_epoll_wait` then found "no sockets to check, this would deadlock" and
/// kiosk died of SIGSEGV at SIGTERM after an SRT reconnect (CI, 2026-11-28; libsrt's own
/// issue 3354 is the same race with its receive thread). A stop cancels every pipeline's
/// FFmpeg calls, so their threads end within a poll (0.1 s); the process's end waits for them
/// here rather than racing them.
///
/// A `WorkerThread` made with `finishesBeforeExit: true` is counted from `start` until its
/// body returns; `ExitGate.leave(code)` waits for the count to reach zero, at most the time
/// given, then exits. A thread still running then (a library call that ignores FFmpeg's
/// interrupt) is named on stderr, and the process ends with `_exit` after flushing stdio, so
/// no destructor runs under it.
public enum ExitGate {
    private static let registry = Registry()

    static func enter(_ name: String) { registry.enter(name) }
    static func leave(thread name: String) { registry.leave(name) }

    /// The names of the counted threads still running after at most `timeout` seconds.
    public static func waitForThreads(timeout: Double) -> [String] { registry.wait(timeout: timeout) }

    /// Ends the process with `code` once the counted threads are done (at most `timeout` s).
    public static func leave(_ code: Int32, timeout: Double = 1) -> Never {
        let running = waitForThreads(timeout: timeout)
        guard running.isEmpty else {
            let names = Dictionary(grouping: running, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted()
            let line = "kiosk: \(running.count) worker threads still in a library call \(timeout) s after the stop "
                + "(\(names.joined(separator: ", "))): ending without the libraries' destructors\n"
            line.utf8CString.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count - 1) }
            fflush(nil)
            _exit(code)
        }
        exit(code)
    }

    private final class Registry: @unchecked Sendable {
        // Safe to share: `running` is only touched with `condition` held.
        private let condition = NSCondition()
        private var running: [String: Int] = [:]

        func enter(_ name: String) { condition.withLock { running[name, default: 0] += 1 } }

        func leave(_ name: String) {
            condition.withLock {
                running[name, default: 1] -= 1
                if running[name] == 0 { running[name] = nil }
                condition.broadcast()
            }
        }

        func wait(timeout: Double) -> [String] {
            // On the monotonic clock: a wall-clock step at the end neither cuts nor stretches it.
            let deadline = DispatchTime.now() + timeout
            return condition.withLock {
                while !running.isEmpty {
                    let left = Double(Int64(deadline.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9
                    if left <= 0 { break }
                    // NSCondition waits on the wall clock; short slices keep the deadline monotonic.
                    _ = condition.wait(until: Date(timeIntervalSinceNow: min(left, 0.05)))
                }
                return running.flatMap { Array(repeating: $0.key, count: $0.value) }
            }
        }
    }
}
