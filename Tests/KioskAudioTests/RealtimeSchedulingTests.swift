import Foundation
import Glibc
import KioskAudio
import Testing

/// The writer thread's real-time scheduling: taken where the process may (root, or within
/// RLIMIT_RTPRIO), on the calling thread only, and refused with a reason otherwise.
@Suite struct RealtimeSchedulingTests {
    /// Runs `body` on a new thread and returns what it returned (the policy must not leak
    /// into the test runner's threads).
    static func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { box.value = body(); done.signal() }
        thread.start()
        done.wait()
        return box.value!
    }

    final class ResultBox<T>: @unchecked Sendable { var value: T? }

    @Test func theCallingThreadAloneGoesToFIFOWhenPermitted() {
        let (outcome, after) = Self.onNewThread { () -> (RealtimeScheduling.Outcome, Int32) in
            let outcome = RealtimeScheduling.raiseCurrentThread(priority: 7)
            return (outcome, RealtimeScheduling.currentThread().policy)
        }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit)
        if geteuid() == 0 || limit.rlim_cur >= 7 {
            #expect(outcome == .raised(priority: 7))
            #expect(after == Int32(SCHED_FIFO))
        } else if limit.rlim_cur == 0 {
            #expect(outcome == .refused(reason: "RLIMIT_RTPRIO is 0"))
        } else {
            #expect(outcome == .raised(priority: Int32(limit.rlim_cur)), "capped at the limit")
        }
        #expect(RealtimeScheduling.currentThread().policy == Int32(SCHED_OTHER), "the test's own thread is untouched")
    }

    /// The presenter's held flips: raised for the wait and the commit, then back to the
    /// normal policy with its nice value, whether or not the raise was permitted (0: the
    /// calling thread, for PRIO_PROCESS on Linux).
    @Test func aThreadRaisedForAMomentGoesBackToTheNormalPolicyWithItsNiceValue() {
        let (before, during, after) = Self.onNewThread { () -> ((Int32, Int32), Int32, (Int32, Int32)) in
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 3)
            let before = (RealtimeScheduling.currentThread().policy, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
            _ = RealtimeScheduling.raiseCurrentThread(priority: RealtimeScheduling.heldFlipPriority)
            let during = RealtimeScheduling.currentThread().policy
            RealtimeScheduling.lowerCurrentThread()
            return (before, during, (RealtimeScheduling.currentThread().policy, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)))
        }
        #expect(before == (Int32(SCHED_OTHER), 3))
        if geteuid() == 0 { #expect(during == Int32(SCHED_FIFO)) }
        #expect(after.0 == Int32(SCHED_OTHER) && after.1 == 3, "back to SCHED_OTHER at nice 3: \(after)")
    }
}
