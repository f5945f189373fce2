/// Which override has the screen (kiosk.conf `overrides:`, #35): each asked override is held
/// here with its priority and expiry, and the one shown is the highest priority, the newest
/// among equals. A lower one asked meanwhile waits, its expiry running; when the one shown
/// ends (cancelled, expired), the next one shows, or the playlist comes back when none is left.
/// Asking for an override that is held again replaces it (a CAP Update, a repeated MQTT
/// message): it counts as new, with its new expiry. Pure: times are what the caller's clock
/// says (seconds of one monotonic clock); the engine turns each change into one request.
public struct OverrideBook<Payload: Sendable & Equatable>: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// Names this override among those held: a kiosk.conf name, or an alert's key.
        public var id: String
        public var priority: Int
        /// When it ends by itself; nil: until cancelled.
        public var expires: Double?
        public var payload: Payload
        /// The order it was asked in (newest wins among equal priorities).
        public fileprivate(set) var sequence: UInt64 = 0

        public init(id: String, priority: Int, expires: Double?, payload: Payload) {
            self.id = id
            self.priority = priority
            self.expires = expires
            self.payload = payload
        }
    }

    /// What a change did to the screen.
    public enum Change: Sendable, Equatable {
        /// The screen stays as it was (a lower override queued, one waiting cancelled).
        case unchanged
        /// `entry` takes the screen (from the playlist or from another override).
        case show(Entry)
        /// No override is left: the playlist comes back.
        case resumePlaylist
    }

    /// Everything held, shown and waiting, in the order asked.
    public private(set) var entries: [Entry] = []
    private var nextSequence: UInt64 = 0
    /// At most this many held (the oldest of the lowest priority goes first): a flood of
    /// alerts or messages must not grow without end.
    public static var capacity: Int { 256 }

    public init() {}

    /// The override on screen: the highest priority, the newest among equals.
    public var showing: Entry? {
        entries.max { ($0.priority, $0.sequence) < ($1.priority, $1.sequence) }
    }

    /// The earliest expiry of those held: when `expire(at:)` has something to do.
    public var nextExpiry: Double? { entries.compactMap(\.expires).min() }

    /// Asks for `entry` at `now`; one already expired is not held (nothing changes).
    public mutating func start(_ entry: Entry, at now: Double) -> Change {
        let before = showing
        entries.removeAll { $0.id == entry.id }
        guard entry.expires.map({ $0 > now }) ?? true else { return change(from: before) }
        var entry = entry
        entry.sequence = nextSequence
        nextSequence += 1
        entries.append(entry)
        if entries.count > Self.capacity, let lowest = entries.indices.min(by: {
            (entries[$0].priority, entries[$0].sequence) < (entries[$1].priority, entries[$1].sequence)
        }) {
            entries.remove(at: lowest)
        }
        return change(from: before)
    }

    /// Ends the override `id` (shown or waiting); unknown ids change nothing.
    public mutating func cancel(_ id: String) -> Change {
        let before = showing
        entries.removeAll { $0.id == id }
        return change(from: before)
    }

    /// Ends the overrides `ids` together: one change (one at a time, a waiting one came on
    /// screen for a frame between two).
    public mutating func cancel(ids: Set<String>) -> Change {
        let before = showing
        entries.removeAll { ids.contains($0.id) }
        return change(from: before)
    }

    /// Ends every override (`override_cancel` without a name).
    public mutating func cancelAll() -> Change {
        let before = showing
        entries.removeAll()
        return change(from: before)
    }

    /// Ends those whose expiry has come by `now`.
    public mutating func expire(at now: Double) -> Change {
        let before = showing
        entries.removeAll { $0.expires.map { $0 <= now } ?? false }
        return change(from: before)
    }

    private func change(from before: Entry?) -> Change {
        let after = showing
        if after == before { return .unchanged }
        guard let after else { return .resumePlaylist }
        return .show(after)
    }
}
