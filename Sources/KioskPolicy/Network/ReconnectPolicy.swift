/// When a network item that dropped is tried again, and when it is given up: attempts after
/// `backoff`'s delays (0.5 s, 1 s, 2 s, 2 s ...) until `giveUpAfter` has passed since the
/// connection was lost. A stream that never comes back is then failed like a bad file, so the
/// playlist moves on and the item is tried again on the next pass. Pure, so the schedule is
/// tested without a server.
///
/// A live source (`LiveSource`) is never given up: `.live` tries again after 0.1, 0.2, 0.4, then
/// every 0.5 s for as long as it is away, and 2 s without a packet is a loss (a VOD server may
/// pause a read for longer; a live one sends every frame interval).
public struct ReconnectPolicy: Sendable, Equatable {
    public var backoff: RetryBackoff
    /// The longest outage ridden out, counted from the loss to the start of an attempt; nil:
    /// no end (live).
    public var giveUpAfter: MediaTime?
    /// A read that brings nothing for this long is a loss too (a live HLS retrying the
    /// playlist of a dead server): longer than a live stream's segment wait, within the budget.
    public var silentReadLimit = MediaTime(value: 12, timescale: 1)

    public init(backoff: RetryBackoff = RetryBackoff(initial: MediaTime(value: 1, timescale: 2),
                                                      maximum: MediaTime(value: 2, timescale: 1)),
                giveUpAfter: MediaTime? = MediaTime(value: 15, timescale: 1)) {
        self.backoff = backoff
        self.giveUpAfter = giveUpAfter
    }

    public static let standard = ReconnectPolicy()

    /// Live sources: back within half a second of the source's return, however long it was away.
    public static let live: ReconnectPolicy = {
        var policy = ReconnectPolicy(backoff: RetryBackoff(initial: MediaTime(value: 1, timescale: 10),
                                                           maximum: MediaTime(value: 1, timescale: 2)),
                                     giveUpAfter: nil)
        policy.silentReadLimit = MediaTime(value: 2, timescale: 1)
        return policy
    }()

    /// The live policy for a source of `scheme`. SRT's silence limit is 1 s: its link
    /// retransmits what the network drops and a live sender sends every frame interval, so a
    /// second of nothing is a dead peer, and that death gives no other sign (RTSP's TCP ends
    /// with the server; libsrt's own peer-idle timeout is 5 s and FFmpeg 5.1 cannot set it). At
    /// 2 s an SRT sender back within a second was on screen again only 2.1-2.6 s after its
    /// return (Benchmarks/live_sources.py, 100 outages); a false loss costs about what the
    /// second of silence showed anyway.
    public static func live(scheme: String?) -> ReconnectPolicy {
        guard scheme == "srt" else { return live }
        var policy = live
        policy.silentReadLimit = MediaTime(value: 1, timescale: 1)
        return policy
    }

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
        if let giveUpAfter, elapsed + delay > giveUpAfter { return .giveUp }
        return .retry(after: delay)
    }
}
