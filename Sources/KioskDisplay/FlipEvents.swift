import CDRM
import Foundation
import Glibc
import SystemPackage

/// A completed page flip: the CRTC's refresh counter and when it happened.
public struct FlipEvent: Sendable, Hashable {
    public var sequence: UInt32
    /// CLOCK_MONOTONIC seconds (the kernel stamps DRM events with the monotonic clock since
    /// Linux 3.x; DRM_CAP_TIMESTAMP_MONOTONIC says so).
    public var seconds: Double
}

/// Waits for the kernel's page-flip events on a card's file descriptor. Its address is the
/// `user_data` of each flip request, so the C callback can find it again; the display keeps it
/// alive and never closes the card with a flip outstanding unless the wait timed out (the
/// kernel then drops the event with the file).
///
/// On a card shared by several screens (`SharedCard`) every screen's events come on the one
/// descriptor, and whichever waiter reads them hands each to the waiter its user data names:
/// `sharedEvents` serializes the reading and guards `received`, and the poll wakes often
/// enough to see an event another waiter read for it.
final class FlipWaiter {
    private let fd: FileDescriptor
    private var received: FlipEvent?
    private let sharedEvents: NSLock?

    init(fd: FileDescriptor, sharedEvents: NSLock? = nil) {
        self.fd = fd
        self.sharedEvents = sharedEvents
    }

    /// The event handed over, taken (under the shared lock when there is one).
    private func takeReceived() -> FlipEvent? {
        sharedEvents?.lock(); defer { sharedEvents?.unlock() }
        defer { received = nil }
        return received
    }

    var userData: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Blocks until a flip event arrives (poll + drmHandleEvent), at most `timeout` seconds.
    func wait(timeout: Double) throws(DRMError) -> FlipEvent {
        if sharedEvents == nil { received = nil }
        var context = drmEventContext()
        context.version = 2
        // A C function pointer: it cannot capture, so it finds the waiter through user_data.
        context.page_flip_handler = { _, sequence, seconds, microseconds, userData in
            guard let userData else { return }
            let waiter = Unmanaged<FlipWaiter>.fromOpaque(userData).takeUnretainedValue()
            waiter.received = FlipEvent(sequence: sequence,
                                        seconds: Double(seconds) + Double(microseconds) / 1_000_000)
        }
        let deadline = monotonicSeconds() + timeout
        var lookedPastDeadline = false
        while true {
            if let event = takeReceived() { return event }
            var remaining = deadline - monotonicSeconds()
            if remaining <= 0 {
                // One look without waiting first: a machine stalled past the deadline (a starved
                // VM, a box swapping) wakes with the event already there, and a hung display
                // would have been reported for a flip that came.
                guard !lookedPastDeadline else { throw .flipTimeout(seconds: timeout) }
                lookedPastDeadline = true
                remaining = 0
            }
            // Shared: another waiter may read this one's event; look again every 2 ms.
            let slice = sharedEvents == nil ? remaining : min(remaining, 0.002)
            var request = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = poll(&request, 1, Int32((slice * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .callFailed(what: "waiting for a page flip", call: "poll", errno: errno)
            }
            if ready == 0 { continue }   // the deadline check above ends the loop
            sharedEvents?.lock()
            // Non-blocking on a shared card: another waiter may have read the event since poll.
            let handled = sharedEvents == nil || Self.hasEvent(fd) ? drmHandleEvent(fd.rawValue, &context) : 0
            sharedEvents?.unlock()
            if handled != 0 {
                throw .callFailed(what: "reading a page-flip event", call: "drmHandleEvent", errno: errno)
            }
        }
    }

    private static func hasEvent(_ fd: FileDescriptor) -> Bool {
        var request = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, 0) > 0
    }
}

/// CLOCK_MONOTONIC in seconds: the clock flip events are stamped with.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
}
