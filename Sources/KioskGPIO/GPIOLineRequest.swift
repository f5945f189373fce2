import CGpiod
import Glibc

/// One edge of a line, as the kernel reported it.
public struct GPIOEdgeEvent: Sendable, Equatable {
    /// The pin went high (false: low); physical, not inverted for active low.
    public var rising: Bool
    /// The kernel's timestamp (CLOCK_MONOTONIC), seconds.
    public var time: Double

    public init(rising: Bool, time: Double) {
        self.rising = rising
        self.time = time
    }
}

/// One line requested as an input with edge events on both edges. Released when let go.
public final class GPIOLineRequest: @unchecked Sendable {
    // Safe to share: used from one watch thread; the pointer is only freed in deinit.
    private let request: UnsafeMutablePointer<kiosk_gpio_request>
    /// Kept open for as long as the request lives (libgpiod 1's line belongs to its chip).
    public let chip: GPIOChip
    public let offset: Int

    init(_ request: UnsafeMutablePointer<kiosk_gpio_request>, chip: GPIOChip, offset: Int) {
        self.request = request
        self.chip = chip
        self.offset = offset
    }

    deinit { kiosk_gpio_request_release(request) }

    /// Whether the request went around libgpiod 1.6 to the kernel's uAPI v2: a kernel built
    /// without uAPI v1 (CONFIG_GPIO_CDEV_V1), which is all libgpiod 1.6 speaks.
    public var isDirect: Bool { kiosk_gpio_request_is_direct(request) != 0 }

    /// Who debounces and through what, for the line that says the line is read.
    public var howRead: String {
        if isDirect {
            return "kiosk's debounce; through the kernel's GPIO uAPI v2 directly, as this kernel lacks the uAPI v1 libgpiod 1.6 speaks"
        }
        return GPIOChip.kernelDebounces ? "the kernel's debounce and kiosk's" : "kiosk's debounce (libgpiod 1: none in the kernel)"
    }

    /// The descriptor that becomes readable when edges wait.
    public var fileDescriptor: Int32 { kiosk_gpio_request_fd(request) }

    /// The pin's level now, 0 or 1 (physical).
    public func value() throws(GPIOError) -> Int {
        let value = kiosk_gpio_request_value(request)
        guard value >= 0 else { throw failure("cannot read its value") }
        return Int(value)
    }

    /// The edges that wait, without blocking: call once the descriptor is readable.
    public func readEdges() throws(GPIOError) -> [GPIOEdgeEvent] {
        var buffer = [kiosk_gpio_edge](repeating: kiosk_gpio_edge(), count: 16)
        let count = kiosk_gpio_request_read(request, &buffer, UInt32(buffer.count))
        guard count >= 0 else { throw failure("cannot read its edges") }
        return buffer.prefix(Int(count)).map { GPIOEdgeEvent(rising: $0.rising != 0, time: Double($0.timestamp_ns) / 1e9) }
    }

    /// Waits up to `timeout` seconds for edges (so a stop is seen that often); empty when none came.
    public func waitForEdges(timeout: Double) throws(GPIOError) -> [GPIOEdgeEvent] {
        var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(max(0, timeout) * 1000))
        if ready < 0 {
            guard Glibc.errno == EINTR else { throw failure("cannot wait for its edges") }
            return []
        }
        if ready == 0 { return [] }
        if poller.revents & Int16(POLLIN) == 0 {
            throw GPIOError(chip: chip.path, line: "line \(offset)", what: "the chip went away")
        }
        return try readEdges()
    }

    private func failure(_ what: String) -> GPIOError {
        GPIOError(chip: chip.path, line: "line \(offset)", what: what, errno: Glibc.errno)
    }
}
