import Foundation

/// The sources whose input is opening or open in this process, counted by name. A UDP or RTP
/// stream binds its local port while its input is open, so the same item begun again while its last play's
/// input still closes (a synchronised wall leaving a stream's slot, with the stream next again
/// and prepared at once; a list of one stream) failed to bind ("Address already in use") and
/// was reported lost for a second. The item pipeline waits here first, for such a source.
public final class OpenInputs: @unchecked Sendable {
    public static let shared = OpenInputs()
    // Counted by the threads that open and close inputs, waited on by a demux thread.
    private let condition = NSCondition()
    private var counts: [String: Int] = [:]

    func opened(_ source: String) {
        condition.lock()
        counts[source, default: 0] += 1
        condition.unlock()
    }

    func closed(_ source: String) {
        condition.lock()
        if let count = counts[source] { counts[source] = count > 1 ? count - 1 : nil }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until no input of `source` is open, `seconds` at most, looking at `cancelled` every
    /// 50 ms (an item closed meanwhile stops waiting). True when none is open.
    public func waitUntilClosed(_ source: String, seconds: Double, cancelled: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while counts[source] != nil {
            if cancelled() || Date() >= deadline { return false }
            _ = condition.wait(until: min(deadline, Date(timeIntervalSinceNow: 0.05)))
        }
        return true
    }
}
