/// When to act on a burst of file events: an editor's save is several events (a temp file
/// written, renamed over; or truncate, write, write, close), and reading in the middle of
/// them sees half a file. Each change pushes the moment back by `quiet`; a file that never
/// stops changing is still read once `longest` has passed since the first change.
public struct ChangeDebounce: Sendable, Equatable {
    public let quiet: Double
    public let longest: Double
    private var firstChange: Double?
    private var lastChange: Double?

    public init(quiet: Double = 0.25, longest: Double = 2) {
        self.quiet = quiet
        self.longest = longest
    }

    /// A change was seen at `now` (seconds on a monotonic clock).
    public mutating func noteChange(at now: Double) {
        if firstChange == nil { firstChange = now }
        lastChange = now
    }

    /// When the pending change is due; nil when nothing is pending.
    public var deadline: Double? {
        guard let firstChange, let lastChange else { return nil }
        return Swift.min(lastChange + quiet, firstChange + longest)
    }

    /// True once (and then forgets the change) when a pending change is due at `now`.
    public mutating func takeIfDue(at now: Double) -> Bool {
        guard let deadline, now >= deadline else { return false }
        firstChange = nil
        lastChange = nil
        return true
    }
}
