import Glibc

/// The time and sleep that sinks pacing themselves by the clock use, so tests can run a
/// minute of backoff in microseconds with a fake.
public protocol HostClock: Sendable {
    /// CLOCK_MONOTONIC, in seconds.
    func now() -> Double
    func sleep(seconds: Double)
}

/// The system's monotonic clock: what the rest of kiosk (display flips, the master clock)
/// measures time by.
public struct MonotonicClock: HostClock {
    public init() {}

    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// CLOCK_MONOTONIC as an exact MediaTime (nanoseconds), as the master clock takes it.
    public static func hostTime() -> MediaTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MediaTime(value: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec), timescale: 1_000_000_000)
    }

    /// A CLOCK_MONOTONIC reading in seconds (a flip event's time) as a host time.
    public static func hostTime(seconds: Double) -> MediaTime {
        MediaTime(hostNanoseconds: Int64((seconds * 1e9).rounded()))
    }
}
