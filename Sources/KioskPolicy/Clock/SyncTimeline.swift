/// A playlist as a timeline that began at an epoch and loops for ever (`sync: epoch:`), so every
/// box whose real-time clock is disciplined (chrony, linuxptp) computes the same item and the
/// same position for the same instant, with no protocol between the boxes: a box that starts
/// late, restarts or reloads finds its place from the clock alone.
///
/// Exact integer nanoseconds of CLOCK_REALTIME (Int64 holds ±292 years around 1970); the loop's
/// position is a remainder, so looping for years adds no drift. Pure: the engine's
/// `TimelineFollower` asks it where to be at each flip.
public struct SyncTimeline: Sendable, Hashable {
    /// Where the timeline is at an instant: entry `entry` (an index into the list the timeline
    /// was made from), `offset` into it.
    public struct Place: Sendable, Hashable {
        public let entry: Int
        public let offset: MediaTime
    }

    /// The epoch, in nanoseconds of CLOCK_REALTIME since 1970-01-01T00:00:00Z.
    public let epochNanoseconds: Int64
    /// Each entry's slot on the timeline, in nanoseconds; 0 for an entry that is not on it
    /// (an entry whose length is not known: it is skipped by every box alike).
    public let slots: [Int64]
    /// Where each slot starts within one turn of the loop.
    private let starts: [Int64]
    /// One turn of the loop: the sum of the slots.
    public let loopLength: Int64

    /// nil when no entry has a length: there is no timeline to follow.
    public init?(epochNanoseconds: Int64, slots: [MediaTime?]) {
        let nanos = slots.map { slot -> Int64 in
            guard let slot, slot > .zero else { return 0 }
            return slot.ticks(in: Self.nanosecond)
        }
        var starts: [Int64] = []
        var total: Int64 = 0
        for slot in nanos {
            starts.append(total)
            let (sum, overflow) = total.addingReportingOverflow(slot)
            guard !overflow else { return nil }
            total = sum
        }
        guard total > 0 else { return nil }
        self.epochNanoseconds = epochNanoseconds
        self.slots = nanos
        self.starts = starts
        loopLength = total
    }

    /// How far into the current turn of the loop the instant `realtime` is, in [0, loopLength).
    /// Before the epoch the timeline runs too (a clock not yet set still gives a place, the
    /// same on every box with the same wrong clock).
    public func loopPosition(atRealtime realtime: Int64) -> Int64 {
        let since = Int128(realtime) - Int128(epochNanoseconds)
        let length = Int128(loopLength)
        let remainder = since % length
        return Int64(remainder < 0 ? remainder + length : remainder)
    }

    /// The entry and the offset into it at `realtime` (nanoseconds).
    public func place(atRealtime realtime: Int64) -> Place {
        let position = loopPosition(atRealtime: realtime)
        // The last slot starting at or before the position that is on the timeline.
        var entry = 0
        for index in starts.indices where slots[index] > 0 && starts[index] <= position { entry = index }
        return Place(entry: entry, offset: Self.mediaTime(position - starts[entry]))
    }

    /// Where entry `entry` should be at `realtime` for the play of it nearest to `position`
    /// (its offset now): the play under way, the one that just ended (a negative-free offset
    /// past its end) or the one about to begin (negative). This is what an item that is
    /// already playing compares its clock with; nil for an entry not on the timeline.
    public func offset(ofEntry entry: Int, atRealtime realtime: Int64, near position: MediaTime) -> MediaTime? {
        guard slots.indices.contains(entry), slots[entry] > 0 else { return nil }
        let length = Int128(loopLength)
        let base = Int128(loopPosition(atRealtime: realtime)) - Int128(starts[entry])   // in (-L, L)
        let near = Int128(position.ticks(in: Self.nanosecond))
        // base + k * L closest to where the item is.
        var best = base
        let turns = (near - base) / length
        for k in [turns - 1, turns, turns + 1] {
            let candidate = base + k * length
            if abs(candidate - near) < abs(best - near) { best = candidate }
        }
        guard let value = Int64(exactly: best) else { return nil }
        return Self.mediaTime(value)
    }

    private static let nanosecond = Rational(1, 1_000_000_000)

    static func mediaTime(_ nanoseconds: Int64) -> MediaTime {
        MediaTime(value: nanoseconds, timescale: 1_000_000_000)
    }
}
