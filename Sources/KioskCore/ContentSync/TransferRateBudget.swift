/// `sync.max_rate` for all downloads together: a token bucket that holds a quarter second of
/// bytes at most. libcurl's own CURLOPT_MAX_RECV_SPEED_LARGE (7.88) lets the first seconds of a
/// transfer through unchecked (a 3 MB file came at 12 MB/s under a 1 MB/s limit), so the
/// transfers pause themselves when the bucket is empty and go on when it has bytes again.
public struct TransferRateBudget: Sendable, Equatable {
    public let bytesPerSecond: Int64
    /// Bytes that may be taken now; below 0 after a chunk larger than what was there.
    public private(set) var available: Double
    private var lastRefill: Double

    public init(bytesPerSecond: Int64, now: Double) {
        self.bytesPerSecond = bytesPerSecond
        available = Double(bytesPerSecond) / 4
        lastRefill = now
    }

    private var capacity: Double { Double(bytesPerSecond) / 4 }

    public mutating func refill(now: Double) {
        guard now > lastRefill else { return }
        available = min(capacity, available + Double(bytesPerSecond) * (now - lastRefill))
        lastRefill = now
    }

    /// Whether a chunk of `bytes` may be written now; taken from the budget when it may. A chunk
    /// is never split (libcurl hands it whole), so the budget may go below 0 and is paid back.
    public mutating func take(_ bytes: Int, now: Double) -> Bool {
        refill(now: now)
        guard available > 0 else { return false }
        available -= Double(bytes)
        return true
    }

    public mutating func hasBudget(now: Double) -> Bool {
        refill(now: now)
        return available > 0
    }
}
