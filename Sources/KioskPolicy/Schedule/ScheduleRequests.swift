/// The scheduler's actions in the player's one vocabulary (`PlayerRequest`): a playlist by its
/// name becomes its entries, an insert's item or playlist the entries to play once, and the
/// screen's state a power request. Pure: the scheduler source in the executable ticks
/// `ScheduleTicker` on the wall clock and sends what this answers.
public struct ScheduleRequests: Sendable {
    /// Every playlist by name, `default` (kiosk.conf's `items`) included, expanded.
    public var playlists: [String: [PlaylistEntry]]
    /// Inserts' `item:`s by their path or URL, expanded.
    public var insertItems: [String: [PlaylistEntry]]
    public var switchMode: ScheduleSwitch

    public init(playlists: [String: [PlaylistEntry]], insertItems: [String: [PlaylistEntry]], switchMode: ScheduleSwitch) {
        self.playlists = playlists
        self.insertItems = insertItems
        self.switchMode = switchMode
    }

    /// After a reload: `actions` of the new schedule's first look, less a switch to what already
    /// plays (the same playlist, its entries unchanged since `before`): a reload that leaves the
    /// schedule's answer as it was changes nothing on screen and sends nothing.
    public func afterReload(_ actions: [ScheduleTicker.Action], playing previous: ScheduleState?,
                            before: ScheduleRequests) -> [ScheduleTicker.Action] {
        actions.filter { action in
            guard case .switchPlaylist(let state) = action, let previous, previous.playlist == state.playlist else { return true }
            return playlists[state.playlist] != before.playlists[state.playlist]
        }
    }

    /// The requests for one action. A playlist with no playable entry (its files missing now)
    /// is still switched to: the player shows its idle screen and retries, as for `items`.
    public func requests(for action: ScheduleTicker.Action) -> [PlayerRequest] {
        switch action {
        case .switchPlaylist(let state):
            return [.switchPlaylist(playlists[state.playlist] ?? [], when: switchMode)]
        case .power(let on):
            return [.setDisplayPower(on: on)]
        case .playInsert(let insert):
            let entries: [PlaylistEntry]
            switch insert.content {
            case .item(let source): entries = insertItems[source] ?? []
            case .playlist(let name): entries = playlists[name] ?? []
            }
            return entries.isEmpty ? [] : [.playOnce(.entries(entries), when: switchMode)]
        }
    }
}
