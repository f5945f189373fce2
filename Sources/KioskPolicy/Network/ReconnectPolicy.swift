/// When a network item that dropped is tried again, and when it is given up: attempts after
/// `backoff`'s delays (0.5 s, 1 s, 2 s, 2 s ...) until `giveUpAfter` has passed since the
/// connection was lost. A stream that never comes back is then failed like a bad file, so the
/// playlist moves on and the item is tried again on the next pass. Pure, so the schedule is
/// tested without a server.
public struct ReconnectPolicy: Sendable, Equatable {
    public var backoff: RetryBackoff
    /// The longest outage ridden out, counted from the loss to the start of an attempt.
    public var giveUpAfter: MediaTime
    /// A read that brings nothing for this long is a loss too (a live HLS retrying the
    /// playlist of a dead server): longer than a live stream's segment wait, within the budget.
    public var silentReadLimit = MediaTime(value: 12, timescale: 1)

    public init(backoff: RetryBackoff = RetryBackoff(initial: MediaTime(value: 1, timescale: 2),
                                                      maximum: MediaTime(value: 2, timescale: 1)),
                giveUpAfter: MediaTime = MediaTime(value: 15, timescale: 1)) {
        self.backoff = backoff
        self.giveUpAfter = giveUpAfter
    }

    public static let standard = ReconnectPolicy()

    public enum Decision: Sendable, Equatable {
        /// Wait this long, then try to reopen.
        case retry(after: MediaTime)
        /// The outage lasted too long: fail the item.
        case giveUp
    }

    /// What to do after `failedAttempts` reopen attempts failed, `elapsed` after the loss.
    /// An attempt whose start would fall past `giveUpAfter` is not made.
    public func decide(failedAttempts: Int, elapsed: MediaTime) -> Decision {
        let delay = backoff.delay(afterFailures: failedAttempts + 1)
        guard elapsed + delay <= giveUpAfter else { return .giveUp }
        return .retry(after: delay)
    }
}
