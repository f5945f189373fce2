// What a play-once plays and a trigger's rules for it: the playlist program's terms
// (PlaylistProgram), which `PlayerRequest.playOnce` carries.

/// What a `playOnce` request plays.
public enum OnceContent: Sendable, Equatable {
    /// An entry of the loop's playlist, counted from 0.
    case entry(index: Int)
    /// Entries of their own (a timed insert's item or playlist).
    case entries([PlaylistEntry])
}

/// A trigger's play-once (kiosk.conf `triggers:`): which trigger, and its rules. A trigger
/// always interrupts at once; what differs from an insert is decided in `PlaylistProgram`.
public struct TriggerPlay: Sendable, Equatable {
    /// What the loop does when the trigger's entries have played (`then`).
    public enum Return: String, Sendable, CaseIterable {
        /// The interrupted item comes back where it was.
        case resume
        /// The loop starts again from its first item.
        case restart
    }

    /// What this trigger does when it fires while another trigger's entries play
    /// (`during_trigger`).
    public enum Overlap: String, Sendable, CaseIterable {
        /// Its entries take over at once; the loop it returns to stays the one first interrupted.
        case replace
        /// It is ignored (one log line): the trigger playing plays on.
        case ignore
    }

    /// kiosk.conf's `name`, for logs and proof of play.
    public var name: String
    public var then: Return
    public var duringTrigger: Overlap

    public init(name: String, then: Return = .resume, duringTrigger: Overlap = .replace) {
        self.name = name
        self.then = then
        self.duringTrigger = duringTrigger
    }
}
