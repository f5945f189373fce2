/// kiosk.conf's triggers with their content expanded to playlist entries, as the sources that
/// fire them look them up: input by key name and by the point tapped, the control socket by
/// name. Each answers the same `PlayerRequest`; what it does to the playlist is decided in
/// `PlaylistProgram`. Pure: made at start and on a reload.
public struct TriggerSet: Sendable, Equatable {
    public struct Trigger: Sendable, Equatable {
        public var config: TriggerConfig
        /// What it plays, expanded; empty when nothing could be found (`problem` says why).
        public var entries: [PlaylistEntry]
        /// Why it has nothing to play (an item number past the default playlist, an empty
        /// folder), for the line logged at start and when it fires.
        public var problem: String?

        public var name: String { config.name }

        /// The request firing it sends; nil when it has nothing to play (or runs a command).
        public var request: PlayerRequest? {
            entries.isEmpty ? nil : .playOnce(.entries(entries), when: .now, trigger: config.play)
        }

        /// A command trigger's request line, as a control socket client would send it; nil
        /// for a trigger that plays.
        public var commandLine: String? {
            guard case .command(let words) = config.content else { return nil }
            return ControlValue.object([("command", .array(words.map { .string($0) }))]).json
        }
    }

    /// In file order: the first listed wins where zones overlap.
    public let triggers: [Trigger]

    public init(_ triggers: [Trigger] = []) {
        self.triggers = triggers
    }

    /// Expands `configs`' content. `defaultEntries` is the default playlist (for `item: N`),
    /// `playlists` every named one expanded, `expand` turns an `items:` list into entries
    /// (the file system's business: a folder is read, a glob matched).
    public init(_ configs: [TriggerConfig], defaultEntries: [PlaylistEntry], playlists: [String: [PlaylistEntry]],
                expand: ([ItemConfig]) -> (entries: [PlaylistEntry], problems: [String])) {
        triggers = configs.map { config in
            let (entries, problem) = Self.entries(of: config.content, defaultEntries: defaultEntries, playlists: playlists,
                                                  expand: expand)
            return Trigger(config: config, entries: entries, problem: problem)
        }
    }

    /// What `content` plays, expanded, and why it has nothing to play where it has not (an
    /// item number past the default playlist, an empty folder); a command plays nothing. Also
    /// what an override (`OverrideSet`) plays.
    public static func entries(of content: TriggerConfig.Content, defaultEntries: [PlaylistEntry],
                               playlists: [String: [PlaylistEntry]],
                               expand: ([ItemConfig]) -> (entries: [PlaylistEntry], problems: [String]))
        -> (entries: [PlaylistEntry], problem: String?) {
        switch content {
        case .item(let index):
            guard defaultEntries.indices.contains(index) else {
                return ([], "item \(index) is not in the default playlist (it has \(defaultEntries.count) "
                        + "entr\(defaultEntries.count == 1 ? "y" : "ies"), counted from 0)")
            }
            return ([defaultEntries[index]], nil)
        case .playlist(let name):
            let entries = playlists[name] ?? []
            return (entries, entries.isEmpty ? "playlist \(name) has nothing to play now" : nil)
        case .items(let items):
            let expansion = expand(items)
            return (expansion.entries, expansion.entries.isEmpty
                    ? (["its items have nothing to play now"] + expansion.problems).joined(separator: "; ") : nil)
        case .command:
            return ([], nil)   // carried out through the command table, not played
        }
    }

    public var isEmpty: Bool { triggers.isEmpty }
    public var names: [String] { triggers.map(\.name) }

    public func trigger(named name: String) -> Trigger? { triggers.first { $0.name == name } }

    /// The trigger bound to the evdev key `keyName` (any case).
    public func trigger(forKey keyName: String) -> Trigger? {
        let key = keyName.uppercased()
        return triggers.first { $0.config.keys.contains(key) }
    }

    /// The first trigger listed whose zone holds `point` on a screen of `size` (the viewer's).
    public func trigger(at point: ScreenPoint, on size: PixelSize) -> Trigger? {
        triggers.first { $0.config.zone?.contains(point, on: size) ?? false }
    }

    /// Every key name a trigger is bound to.
    public var keyNames: [String] { triggers.flatMap(\.config.keys) }

    /// Whether any trigger has a zone (touch devices then matter even with taps switched off).
    public var hasZones: Bool { triggers.contains { $0.config.zone != nil } }
}
