import Dispatch
import Foundation
import KioskCore
import Testing

/// The pipe a watcher blocks on beside its own descriptors (WakePipe.swift), and the end signal
/// the session's wait sleeps on (WorkerThread.signalWhenDone).
@Suite struct WakePipeTests {
    @Test func aWakeIsSeenOnceAndThenTaken() {
        let pipe = WakePipe()
        #expect(pipe.isUsable)
        #expect(!pipe.wait(seconds: 0), "nothing written yet")
        pipe.wake()
        pipe.wake()   // two wakes before a look are one
        #expect(pipe.wait(seconds: 0))
        #expect(!pipe.wait(seconds: 0), "the wait emptied the pipe")
    }

    @Test func aWaitWithoutATimeoutEndsWhenAnotherThreadWakesIt() {
        let pipe = WakePipe()
        let woken = Flag()
        let waiter = WorkerThread.start(name: "kiosk-test-wait") { if pipe.wait(seconds: nil) { woken.set() } }
        usleep(50_000)   // most likely blocked in its poll now (a wake before it is kept for it too)
        pipe.wake()
        // A deadline for a hang, not a speed: without the wake the waiter never returns.
        #expect(waiter.join(timeout: 30))
        #expect(woken.isSet)
    }

    @Test func pollTimeoutsRoundUpCapAndStayShortWithoutAPipe() {
        #expect(WakePipe.milliseconds(nil) == -1)
        #expect(WakePipe.milliseconds(0.0001) == 1, "a deadline is reached, not missed by a fraction")
        #expect(WakePipe.milliseconds(-3) == 0)
        #expect(WakePipe.milliseconds(1e9) == 60_000)
        #expect(WakePipe.milliseconds(nil, usable: false) == 200)
        #expect(WakePipe.milliseconds(5, usable: false) == 200)
        #expect(WakePipe.milliseconds(0.05, usable: false) == 50)
    }

    @Test func theEndOfAWorkerSignalsWhoAskedBeforeAndAfterIt() {
        let release = DispatchSemaphore(value: 0)
        let worker = WorkerThread.start(name: "kiosk-test-end") { release.wait() }
        let before = DispatchSemaphore(value: 0)
        worker.signalWhenDone(before)
        #expect(before.wait(timeout: .now()) == .timedOut, "still running")
        #expect(!worker.hasFinished)
        release.signal()
        #expect(before.wait(timeout: .now() + 30) == .success)
        #expect(worker.hasFinished, "signalled after the end was recorded")
        let after = DispatchSemaphore(value: 0)
        worker.signalWhenDone(after)
        #expect(after.wait(timeout: .now()) == .success, "asked after the end: signalled at once")
    }

    private final class Flag: @unchecked Sendable {
        // Safe to share: `value` is only touched with `lock` held.
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
