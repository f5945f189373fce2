/// Why an item plays: what a proof-of-play record says of it (`played_as`, and `by`).
public enum PlayedAs: Sendable, Hashable {
    /// The loop's own list (kiosk.conf's items, a schedule's playlist, a `load`).
    case loop
    /// Played once by a timed insert or `play_item_once`.
    case insert
    /// One of the entries the trigger `name` plays.
    case trigger(String)
    /// The override `name` took the screen.
    case override(String)

    /// The record's `played_as` word.
    public var word: String {
        switch self {
        case .loop: "loop"
        case .insert: "insert"
        case .trigger: "trigger"
        case .override: "override"
        }
    }

    /// The trigger's or override's name (the record's `by`); nil for the loop and inserts.
    public var name: String? {
        switch self {
        case .loop, .insert: nil
        case .trigger(let name), .override(let name): name
        }
    }
}
