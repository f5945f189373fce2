import Foundation
import KioskCore
import Testing

@Suite struct WorkerThreadTests {
    /// What the body saw, written on the worker and read after `join`.
    private final class Seen: @unchecked Sendable {
        // Safe to share: every field is touched with `lock` held.
        private let lock = NSLock()
        private var name: String?
        private var isMain: Bool?
        private var qos: QualityOfService?
        func record() {
            lock.withLock {
                name = WorkerThreadTests.systemThreadName()
                isMain = Thread.isMainThread
                qos = Thread.current.qualityOfService
            }
        }
        var values: (name: String?, isMain: Bool?, qos: QualityOfService?) { lock.withLock { (name, isMain, qos) } }
    }

    /// The calling thread's name as the system has it (what `top -H` and gdb show).
    static func systemThreadName() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return String(text.prefix { $0 != "\n" })
    }

    @Test func runsTheBodyOnAThreadWithTheName() {
        let seen = Seen()
        let worker = WorkerThread.start(name: "kiosk-test", qos: .userInteractive) { seen.record() }
        #expect(worker.join(timeout: 5))
        let values = seen.values
        #expect(values.name == "kiosk-test")
        #expect(values.isMain == false)
        #expect(worker.name == "kiosk-test")
        #expect(worker.qualityOfService == .userInteractive)
    }

    /// Bulk work runs nicer than its parent, threads it makes included (FFmpeg's frame threads
    /// inherit the demux thread's value); the presenter's quality of service changes nothing.
    @Test func utilityWorkRunsNicerThanItsParentAndPassesItOn() {
        let parent = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let values = NiceValues()
        let worker = WorkerThread.start(name: "kiosk-test-bulk", qos: .utility) {
            values.set("bulk", getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            let child = WorkerThread.start(name: "kiosk-test-child") {
                values.set("child", getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            }
            _ = child.join(timeout: 5)
        }
        let urgent = WorkerThread.start(name: "kiosk-test-urgent", qos: .userInteractive) {
            values.set("urgent", getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(worker.join(timeout: 5) && urgent.join(timeout: 5))
        let expected = min(parent + WorkerThread.niceIncrement(for: .utility), 19)
        #expect(WorkerThread.niceIncrement(for: .utility) > 0)
        #expect(values.get("bulk") == expected)
        #expect(values.get("child") == expected)
        #expect(values.get("urgent") == parent)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == parent)   // the caller's own is untouched
    }

    /// A thread that opens several large decoders (a live source's retries) is lowered once.
    @Test func loweringOnceLowersOnlyOnce() {
        let values = NiceValues()
        let worker = WorkerThread.start(name: "kiosk-test-once") {
            values.set("before", getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            WorkerThread.lowerCurrentThreadPriorityOnce(for: .utility)
            WorkerThread.lowerCurrentThreadPriorityOnce(for: .utility)
            values.set("after", getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        }
        #expect(worker.join(timeout: 5))
        let before = values.get("before") ?? -100
        #expect(values.get("after") == min(before + WorkerThread.niceIncrement(for: .utility), 19))
    }

    /// In a real-time process bulk work drops to the lowest priority of the same policy: below
    /// the presenter, still above the box's ordinary processes; nothing changes elsewhere.
    @Test func bulkWorkOfARealtimeProcessRunsBelowItsPresenter() {
        #expect(WorkerThread.bulkRealtimePriority(policy: Int32(SCHED_RR), priority: 10) == 1)
        #expect(WorkerThread.bulkRealtimePriority(policy: Int32(SCHED_FIFO), priority: 5) == 1)
        #expect(WorkerThread.bulkRealtimePriority(policy: Int32(SCHED_RR), priority: 1) == nil)
        #expect(WorkerThread.bulkRealtimePriority(policy: Int32(SCHED_OTHER), priority: 0) == nil)
    }

    /// For real: a thread at SCHED_RR 10 (as `chrt --rr 10 kiosk` starts every thread) is moved
    /// to RR 1, and a thread it starts then inherits that. Where the test may not take a
    /// real-time policy (not root, RLIMIT_RTPRIO 0), an ordinary thread is left as it is.
    @Test func aRealtimeThreadLowersItselfAndPassesItOn() {
        let seen = SchedulingSeen()
        let worker = WorkerThread.start(name: "kiosk-test-rt") {
            seen.set("before", raised: false, WorkerThread.currentScheduling())
            var parameters = sched_param()
            parameters.sched_priority = 10
            let raised = pthread_setschedparam(pthread_self(), Int32(SCHED_RR), &parameters) == 0
            WorkerThread.lowerCurrentThreadBelowRealtimePeers()
            seen.set("self", raised: raised, WorkerThread.currentScheduling())
            let child = WorkerThread.start(name: "kiosk-test-rt-child") { seen.set("child", raised: raised, WorkerThread.currentScheduling()) }
            _ = child.join(timeout: 5)
        }
        #expect(worker.join(timeout: 5))
        let (_, policyBefore, priorityBefore) = seen.get("before")
        for key in ["self", "child"] {
            let (raised, policy, priority) = seen.get(key)
            if raised {
                #expect(policy == Int32(SCHED_RR) && priority == 1, "\(key): policy \(policy) priority \(priority)")
            } else {
                // Not permitted here: an ordinary thread is left as it was.
                #expect(policy == policyBefore && priority == priorityBefore, "\(key): policy \(policy) priority \(priority)")
            }
        }
    }

    private final class SchedulingSeen: @unchecked Sendable {
        // Safe to share: touched with `lock` held.
        private let lock = NSLock()
        private var values: [String: (Bool, Int32, Int32)] = [:]
        func set(_ key: String, raised: Bool, _ value: (Int32, Int32)) { lock.withLock { values[key] = (raised, value.0, value.1) } }
        func get(_ key: String) -> (Bool, Int32, Int32) { lock.withLock { values[key] ?? (false, -1, -1) } }
    }

    private final class NiceValues: @unchecked Sendable {
        // Safe to share: touched with `lock` held.
        private let lock = NSLock()
        private var values: [String: Int32] = [:]
        func set(_ key: String, _ value: Int32) { lock.withLock { values[key] = value } }
        func get(_ key: String) -> Int32? { lock.withLock { values[key] } }
    }

    /// Linux keeps 15 bytes of a thread's name and refuses longer ones: the worker cuts it.
    @Test func aLongNameIsCutToWhatTheSystemKeeps() {
        let seen = Seen()
        let worker = WorkerThread.start(name: "kiosk-audio-decode") { seen.record() }
        #expect(worker.join(timeout: 5))
        #expect(seen.values.name == "kiosk-audio-dec")
        #expect(worker.name == "kiosk-audio-decode")
        #expect(WorkerThread.systemName("kiosk-present") == "kiosk-present")
        #expect(WorkerThread.systemName("kiosk-ééééééééé") == "kiosk-éééé")   // 6 + 4 × 2 bytes, not 7 × 2 + 1
    }

    @Test func joinWaitsForTheEndAndLetsEveryWaiterThrough() {
        let release = DispatchSemaphore(value: 0)
        let worker = WorkerThread.start(name: "kiosk-test-join") { release.wait() }
        #expect(worker.hasStarted)
        #expect(!worker.join(timeout: 0.05))   // still running: times out
        #expect(!worker.isFinished)
        release.signal()
        #expect(worker.join(timeout: 5))
        #expect(worker.isFinished)
        // Later waiters, with or without a timeout, are let through at once.
        #expect(worker.join(timeout: 0))
        #expect(worker.join())
    }

    @Test func aJoinBeforeTheStartWaitsForTheThreadThatStartsLater() {
        let worker = WorkerThread(name: "kiosk-test-late")
        #expect(!worker.hasStarted)
        #expect(!worker.join(timeout: 0.02))
        let joined = DispatchSemaphore(value: 0)
        let waiter = Thread { if worker.join(timeout: 5) { joined.signal() } }
        waiter.start()
        worker.start {}
        #expect(joined.wait(timeout: .now() + 5) == .success)
        #expect(worker.isFinished)
    }

    /// A value that is not Sendable reaches the thread, which becomes its only user.
    @Test func handsOverAValueThatIsNotSendable() {
        final class Counter { var count = 0 }
        let counter = Counter()
        let result = Seen()
        let worker = WorkerThread.start(name: "kiosk-hand-over", handingOver: counter) { counter in
            counter.count += 41
            counter.count += 1
            result.record()
        }
        #expect(worker.join(timeout: 5))
        #expect(result.values.name == "kiosk-hand-over")
        #expect(counter.count == 42)
    }

    /// A thread made to finish before the exit is counted from `start` until its body returns:
    /// the process's end (`ExitGate.leave`) waits for it, and names it when it does not end.
    @Test func aThreadThatFinishesBeforeExitIsWaitedForAndNamed() {
        let name = "kiosk-test-exit-gate"
        let release = DispatchSemaphore(value: 0)
        let worker = WorkerThread.start(name: name, finishesBeforeExit: true) { release.wait() }
        // Other suites' pipelines may run beside this one: only this name is looked at.
        let whileRunning = ExitGate.waitForThreads(timeout: 0.05).filter { $0 == name }
        #expect(whileRunning == [name])
        release.signal()
        // The wait ends when every counted thread has (other suites' too, or after 5 s).
        let afterEnd = ExitGate.waitForThreads(timeout: 5).filter { $0 == name }
        #expect(afterEnd.isEmpty)
        #expect(worker.isFinished || worker.join(timeout: 5))
        // A thread not marked is never counted.
        let plainRelease = DispatchSemaphore(value: 0)
        let plain = WorkerThread.start(name: "kiosk-test-not-gated") { plainRelease.wait() }
        let counted = ExitGate.waitForThreads(timeout: 0).filter { $0 == "kiosk-test-not-gated" }
        #expect(counted.isEmpty)
        plainRelease.signal()
        #expect(plain.join(timeout: 5))
    }
}
