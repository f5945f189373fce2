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

    /// CLOCK_REALTIME, in nanoseconds since 1970, at the host (CLOCK_MONOTONIC) time `host`:
    /// the real-time clock read between two monotonic readings, their distance carried over. A
    /// reading the thread was preempted in (the two monotonic readings far apart) is taken
    /// again, up to three times (the closest pair wins), so a stall of the process shifts
    /// neither the shared timeline of frame sync nor the stats lines' `rt`.
    public static func realtimeNanoseconds(atHost host: MediaTime) -> Int64 {
        var best: (gap: Int64, offset: Int64)?
        for _ in 0..<3 {
            let before = nanoseconds(CLOCK_MONOTONIC)
            let real = nanoseconds(CLOCK_REALTIME)
            let gap = nanoseconds(CLOCK_MONOTONIC) - before
            if best == nil || gap < best!.gap { best = (gap, real - (before + gap / 2)) }
            if gap < 50_000 { break }
        }
        return host.ticks(in: Rational(1, 1_000_000_000)) + best!.offset
    }

    private static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// A CLOCK_MONOTONIC reading in seconds (a flip event's time) as a host time.
    public static func hostTime(seconds: Double) -> MediaTime {
        MediaTime(hostNanoseconds: Int64((seconds * 1e9).rounded()))
    }
}
