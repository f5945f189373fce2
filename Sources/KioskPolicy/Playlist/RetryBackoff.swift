/// How long to wait before trying again after a whole pass of the playlist failed:
/// `initial`, then doubling, never more than `maximum` (1 s, 2 s, 4 s ... 30 s by default).
/// Pure, so the engine's idle screen and the tests agree on the schedule.
public struct RetryBackoff: Sendable, Equatable {
    public var initial: MediaTime
    public var maximum: MediaTime

    public init(initial: MediaTime = MediaTime(value: 1, timescale: 1),
                maximum: MediaTime = MediaTime(value: 30, timescale: 1)) {
        self.initial = initial
        self.maximum = max(initial, maximum)
    }

    public static let standard = RetryBackoff()

    /// The wait after `failures` failed passes in a row; zero for no failure.
    public func delay(afterFailures failures: Int) -> MediaTime {
        guard failures > 0 else { return .zero }
        var delay = initial
        // Doubling stops at the cap, so a box that fails for months never overflows.
        for _ in 1..<failures {
            delay = delay + delay
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }
}
