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
}
