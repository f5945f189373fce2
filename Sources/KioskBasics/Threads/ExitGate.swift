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
/// body returns. `main` asks `waitForThreads` before it exits (kiosk/KioskCommand.swift:
/// a thread still running then is named on stderr, and the process ends with `_exit`).
public enum ExitGate {
    private static let registry = Registry()

    static func enter(_ name: String) { registry.enter(name) }
    static func leave(thread name: String) { registry.leave(name) }

    /// The names of the counted threads still running after at most `timeout` seconds.
    public static func waitForThreads(timeout: Double) -> [String] { registry.wait(timeout: timeout) }

    private final class Registry: @unchecked Sendable {
        // Safe to share: `running` is only touched with `lock` held; the group is thread-safe.
        private let lock = NSLock()
        private var running: [String: Int] = [:]
        /// Waited on, not `running`: its timeout is on the monotonic clock.
        private let group = DispatchGroup()

        func enter(_ name: String) {
            lock.withLock { running[name, default: 0] += 1 }
            group.enter()
        }

        func leave(_ name: String) {
            lock.withLock {
                running[name, default: 1] -= 1
                if running[name] == 0 { running[name] = nil }
            }
            group.leave()
        }

        func wait(timeout: Double) -> [String] {
            _ = group.wait(timeout: .now() + timeout)
            return lock.withLock { running.flatMap { Array(repeating: $0.key, count: $0.value) } }
        }
    }
}
