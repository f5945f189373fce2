import Foundation
import Glibc
@testable import KioskService
import Testing

/// Watch threads block until something happens (StoppableThread.swift): a stop and a nudge
/// end a long sleep, and only a stop ends the loop.
@Suite struct StoppableThreadTests {
    private final class Turns: @unchecked Sendable {
        // Safe to share: `count` is only touched with `lock` held.
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    /// Waits (a deadline for a hang, not a speed) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 30)
        while !condition() {
            if Date() > deadline { return false }
            usleep(5_000)
        }
        return true
    }

    @Test func aNudgeWakesAnHourLongSleepAndAStopEndsTheLoop() {
        let thread = StoppableThread(name: "kiosk-test-watch")
        let turns = Turns()
        let ended = Turns()
        thread.start {
            while !thread.shouldStop {
                turns.add()
                thread.sleep(seconds: 3600)
            }
            ended.add()
        }
        #expect(eventually { turns.value == 1 })
        thread.nudge()
        #expect(eventually { turns.value == 2 }, "the nudge ended the sleep; the loop went on")
        thread.stop(timeout: 30)
        #expect(ended.value == 1, "the stop ended the sleep and the loop")
        #expect(turns.value == 2)
    }

    @Test func aStopWakesALoopBlockedInItsOwnPoll() {
        let thread = StoppableThread(name: "kiosk-test-poll")
        let ended = Turns()
        let turns = Turns()
        thread.start {
            while !thread.shouldStop {
                turns.add()
                var none: [pollfd] = []
                #expect(!thread.poll(&none, seconds: nil), "only the wake pipe was ready")
                #expect(none.isEmpty, "the wake pipe's entry is taken off again")
            }
            ended.add()
        }
        #expect(eventually { turns.value == 1 })
        usleep(50_000)   // most likely in its poll now (either way the stop must end the loop)
        thread.stop(timeout: 30)
        #expect(ended.value == 1)
        #expect(turns.value == 1, "woken by the stop, not by a timeout")
    }

    @Test func pollReportsTheCallersReadyDescriptorAndTakesANudge() {
        let thread = StoppableThread(name: "kiosk-test-ready")
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var byte: UInt8 = 1
        #expect(write(ends[1], &byte, 1) == 1)
        thread.nudge()
        var pollers = [pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)]
        #expect(thread.poll(&pollers, seconds: 30), "the caller's pipe has a byte")
        #expect(pollers.count == 1 && pollers[0].revents & Int16(POLLIN) != 0)
        var none: [pollfd] = []
        #expect(!thread.poll(&none, seconds: 0), "the nudge was taken by the first poll")
        var empty = [pollfd(fd: ends[1], events: Int16(POLLPRI), revents: 0)]
        #expect(!thread.poll(&empty, seconds: 0), "a timeout: nothing ready")
        #expect(empty[0].revents == 0)
    }

    @Test func aStopBeforeTheFirstSleepIsNotLost() {
        let thread = StoppableThread(name: "kiosk-test-early")
        thread.stop()   // before start: the loop sees it at once
        let ended = Turns()
        thread.start {
            thread.sleep(seconds: 3600)
            ended.add()
        }
        #expect(eventually { ended.value == 1 })
    }
}
