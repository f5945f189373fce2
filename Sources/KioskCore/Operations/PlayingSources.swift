/// Which path or URL an item the player reports is. The engine's events name an item by its
/// playlist index and its title only, and the index counts in whichever list plays (the
/// default, one the schedule switched to, a loaded one, an insert's own), so this follows the
/// lists the sources sent and finds the entry whose index and title both fit. Pure.
public struct PlayingSources: Sendable {
    /// The loop's list as last seen playing.
    private var current: [PlaylistEntry]
    /// Lists sent but not yet seen playing (a switch at the next seam, a load, an insert's
    /// own list), newest last; an insert's list never becomes the loop's.
    private var pending: [(entries: [PlaylistEntry], isInsert: Bool)] = []
    /// Lists sent that never played are forgotten after this many newer ones.
    private static let pendingLimit = 8

    public init(entries: [PlaylistEntry]) {
        current = entries
    }

    /// A source sent `request`: the lists it may make play.
    public mutating func noteRequest(_ request: PlayerRequest) {
        switch request {
        case .load(let entries), .switchPlaylist(let entries, _): remember(entries, isInsert: false)
        case .playOnce(.entries(let entries), _, _): remember(entries, isInsert: true)
        default: break
        }
    }

    /// A reload handed the player a new default list.
    public mutating func noteReloaded(_ entries: [PlaylistEntry]) { remember(entries, isInsert: false) }

    private mutating func remember(_ entries: [PlaylistEntry], isInsert: Bool) {
        pending.append((entries, isInsert))
        if pending.count > Self.pendingLimit { pending.removeFirst() }
    }

    /// The entry the player started: at `index` with `title`, in a pending list (newest
    /// first; a load or switch found there becomes the loop's list) or the loop's list. nil
    /// when no list known has such an entry.
    public mutating func started(index: Int, title: String) -> PlaylistEntry? {
        guard let (found, at) = find(index: index, title: title) else { return nil }
        if let at, !pending[at].isInsert {
            current = pending[at].entries
            pending.removeSubrange(...at)
        }
        return found
    }

    /// The same look-up without taking a list as the loop's (an item skipped before it began).
    public func entry(index: Int, title: String) -> PlaylistEntry? {
        find(index: index, title: title)?.entry
    }

    /// The entry, and the pending list's position it was found in (nil: the loop's list).
    private func find(index: Int, title: String) -> (entry: PlaylistEntry, pendingAt: Int?)? {
        for at in pending.indices.reversed() {
            let list = pending[at].entries
            if list.indices.contains(index), list[index].title == title { return (list[index], at) }
        }
        if current.indices.contains(index), current[index].title == title { return (current[index], nil) }
        return nil
    }
}
