/// When to try a failed device again: 1 s, 2 s, 4 s ... doubling up to a cap (30 s). A box
/// whose USB speaker is unplugged for a week tries twice a minute, and one plugged back in is
/// heard within 30 s.
public struct RetryBackoff: Sendable, Hashable {
    public let initialDelay: Double
    public let maximumDelay: Double
    /// Failed attempts since the last success.
    public private(set) var failedAttempts = 0

    public init(initialDelay: Double = 1, maximumDelay: Double = 30) {
        precondition(initialDelay > 0 && maximumDelay >= initialDelay, "backoff delays must grow from a positive start")
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before the next attempt, given the attempts that failed so far.
    public var nextDelay: Double {
        // Doubling 2^k past the cap overflows nothing: the exponent stops growing at 62.
        let doubled = initialDelay * Double(UInt64(1) << UInt64(Swift.min(failedAttempts, 62)))
        return Swift.min(maximumDelay, doubled)
    }

    /// Records a failed attempt and returns the wait before the next one.
    public mutating func recordFailure() -> Double {
        let delay = nextDelay
        failedAttempts += 1
        return delay
    }

    public mutating func reset() { failedAttempts = 0 }
}
