import CDRM
import Glibc
import SystemPackage
import Testing
@testable import KioskDisplay

/// The flip wait, fed through a pipe with the event a driver writes (drmHandleEvent reads any
/// descriptor): an event already there when the deadline has passed is taken, not reported as a
/// hung display (a starved VM or a box swapping wakes after its deadline with the flip done).
@Suite struct FlipWaiterTests {
    private func writeFlipEvent(to fd: Int32, for waiter: FlipWaiter, sequence: UInt32, seconds: UInt32, microseconds: UInt32) {
        var event = drm_event_vblank()
        event.base.type = UInt32(DRM_EVENT_FLIP_COMPLETE)
        event.base.length = UInt32(MemoryLayout<drm_event_vblank>.size)
        event.user_data = UInt64(UInt(bitPattern: waiter.userData))
        event.tv_sec = seconds
        event.tv_usec = microseconds
        event.sequence = sequence
        #expect(write(fd, &event, MemoryLayout<drm_event_vblank>.size) == MemoryLayout<drm_event_vblank>.size)
    }

    @Test func anEventWaitingPastTheDeadlineIsTakenNotCalledATimeout() throws {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let waiter = FlipWaiter(fd: FileDescriptor(rawValue: ends[0]))
        writeFlipEvent(to: ends[1], for: waiter, sequence: 7, seconds: 12, microseconds: 500_000)
        // A deadline already past when the wait begins: the stalled machine's case.
        let event = try waiter.wait(timeout: 0)
        #expect(event == FlipEvent(sequence: 7, seconds: 12.5))
    }

    @Test func noEventByTheDeadlineIsATimeout() {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let waiter = FlipWaiter(fd: FileDescriptor(rawValue: ends[0]))
        do {
            let event = try waiter.wait(timeout: 0.05)
            Issue.record("expected a timeout, got \(event)")
        } catch {
            guard case .flipTimeout = error else { Issue.record("other error: \(error)"); return }
        }
        // An event that comes later is still taken by the next wait (the display waits again).
        writeFlipEvent(to: ends[1], for: waiter, sequence: 8, seconds: 13, microseconds: 0)
        #expect((try? waiter.wait(timeout: 1))?.sequence == 8)
    }
}
