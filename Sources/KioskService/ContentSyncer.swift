import Foundation
import KioskControl
import KioskCore
import KioskFetch
import Logging
import SystemPackage

/// Content sync inside `kiosk run`: a thread that runs a pass at start and then every
/// `sync.interval` (or at once on `sync_now`), and after a switch has the reloader expand the
/// items again, so a `- sync: true` entry plays the new set through the live reload's path
/// (the item on screen plays on when it is still listed). Playback never waits for it: start-up
/// played the last set before the first pass began.
package final class ContentSyncer: ContentSyncControl, @unchecked Sendable {
    // Safe to share: `runner` is used by the thread only; `wanted` is guarded by `lock`;
    // the status box locks itself.
    private let runner: ContentSyncRunner
    private let interval: Double
    private let thread = StoppableThread(name: "kiosk-content-sync")
    private let lock = NSLock()
    private var wanted = false

    package init(config: ContentSyncConfig, logger: Logger) {
        let problems = ProblemsBox()
        runner = ContentSyncRunner(config: config) { kind, line in
            switch kind {
            case .problem: if problems.shouldSay(line) { logger.warning("\(line)") }
            case .news: logger.notice("\(line)")
            }
        }
        self.problemsBox = problems
        interval = max(1, config.interval.seconds)
    }

    /// Starts the thread when `sync.manifest` is set; nil otherwise.
    /// `switched`: after a switch to a new set (`kiosk run`: the reloader expands the items again).
    /// `events`: where its event lines go (the control socket, MQTT), in that order.
    package static func start(_ config: ContentSyncConfig, switched: @escaping @Sendable () -> Void,
                              events: [any ServiceEventObserver], logger: Logger) -> ContentSyncer? {
        guard config.isEnabled else { return nil }
        let syncer = ContentSyncer(config: config, logger: logger)
        if !events.isEmpty { syncer.runner.onEvent = { line in for observer in events { observer.post(line: line) } } }
        syncer.thread.start { [syncer] in syncer.loop(switched: switched, logger: logger) }
        logger.notice("content sync: \(config.manifest ?? "") every \(Int(syncer.interval)) s into \(config.directory)")
        return syncer
    }

    package func stop() { thread.stop(timeout: 5) }

    package func syncNow() {
        lock.withLock { wanted = true }
        thread.nudge()
    }

    package var syncStatus: ControlValue { runner.statusBox.status.value }

    package var serviceStatus: String? { runner.statusBox.status.serviceText }

    /// For the health: the last good pass, failures, and the store's free bytes.
    package var healthFigures: HealthSnapshot.Sync {
        let status = runner.statusBox.status
        return HealthSnapshot.Sync(lastSuccess: status.lastSuccess.map(Double.init), failures: status.failures,
                                   storeFreeBytes: runner.store.freeBytes().map(Double.init))
    }

    private let problemsBox: ProblemsBox

    private func loop(switched: @Sendable () -> Void, logger: Logger) {
        // Behind the decoders and the presenter: hashing and writing 2 GB on a 2-core box at
        // the same priority as playback dropped 10 frames in 60 s (Benchmarks/content_sync.py
        // --during-playback); a sync that takes longer costs nothing on screen. (Linux's nice
        // is per thread, and `who` 0 names the calling thread; raising it needs no privilege.)
        // At least 10, and 6 over the process's own: the decoders run at its value + 4
        // (WorkerThread), so a service started with `Nice=` 7 keeps the sync below them too.
        errno = 0
        let own = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let nice = errno == 0 ? min(19, max(10, own + 6)) : 10
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) != 0 {
            logger.debug("content sync: the thread keeps its priority: \(Errno(rawValue: errno).description)")
        }
        while !thread.shouldStop {
            lock.withLock { wanted = false }
            if case .switched = runner.runOnce(shouldStop: { [thread] in thread.shouldStop }) {
                switched()
            }
            if let gone = problemsBox.endPass() { logger.notice("content sync: \(RepeatedProblems.goneLine(gone))") }
            let wallStart = Date().timeIntervalSince1970, start = MonotonicClock().now()
            runner.statusBox.update { $0.nextCheck = Int64(wallStart + interval) }
            // Sleeps a second at a time: a stop or a sync_now ends the wait. The interval is
            // counted on the monotonic clock, and a wall clock set meanwhile (date -s, NTP's first
            // answer, a resume) ends it: a pass refused for the clock ("retrying when the clock is
            // set") runs again at once. A wall-clock deadline did the first only forwards: a clock
            // set back from the future (a bad RTC) waited years for its next pass.
            while !thread.shouldStop, !lock.withLock({ wanted }) {
                let elapsed = MonotonicClock().now() - start
                if elapsed >= interval { break }
                if abs(Date().timeIntervalSince1970 - wallStart - elapsed) > 2 {
                    logger.notice("content sync: the clock was set; checking now")
                    break
                }
                thread.sleep(seconds: min(1, interval - elapsed))
            }
        }
    }
}

/// `RepeatedProblems` for the runner's log callback and the pass loop (one thread, a lock all
/// the same: the callback is a closure the runner may call from another).
private final class ProblemsBox: @unchecked Sendable {
    // Safe to share: `problems` is only touched with `lock` held.
    private let lock = NSLock()
    private var problems = RepeatedProblems()
    func shouldSay(_ line: String) -> Bool { lock.withLock { problems.shouldSay(line) } }
    func endPass() -> RepeatedProblems.Gone? { lock.withLock { problems.endPass() } }
}
