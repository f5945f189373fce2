/// One of kiosk.conf's `overrides:` (#35): what takes the screen when it is asked for by name
/// (`kiosk ctl override NAME`, MQTT's command topic, a trigger's `command: [override, NAME]`,
/// an alert), how it ranks against the others, and how long it stays.
public struct OverrideConfig: Sendable, Equatable {
    /// The map's key: what requests, logs and events call it.
    public var name: String
    /// What it plays, looping while it is on (`item`, `items` or `playlist`, as a trigger's).
    public var content: TriggerConfig.Content
    /// `priority`: the highest on screen, the others wait (`OverrideBook`). Default 0.
    public var priority: Int
    /// `duration`: it ends by itself this long after it was asked for; nil: until
    /// `override_cancel`.
    public var duration: MediaTime?
    /// `layers`: the names of kiosk.conf's layers that stay up while it plays; the others hide
    /// (a clock, a ticker, a logo) and come back with the playlist. An alert's `text_layer`
    /// is added to its override's.
    public var layers: [String]
    /// `sound` (and `sound_loop`): a sound file heard over what it plays, from when it takes the
    /// screen until it leaves it; nil: none.
    public var sound: SoundCue?
    public var location: SourceLocation

    public init(name: String, content: TriggerConfig.Content, priority: Int = 0, duration: MediaTime? = nil,
                layers: [String] = [], sound: SoundCue? = nil, location: SourceLocation) {
        self.name = name
        self.content = content
        self.priority = priority
        self.duration = duration
        self.layers = layers
        self.sound = sound
        self.location = location
    }

    /// The same without where it was written (a reload compares what it does).
    public var withoutLocation: OverrideConfig {
        var copy = self
        copy.location = SourceLocation(file: "", line: 0, column: 0)
        if case .items(let items) = content { copy.content = .items(items.map(\.withoutLocation)) }
        return copy
    }
}

/// kiosk.conf's overrides with their content expanded to playlist entries (as `TriggerSet`
/// expands triggers'), made at start and on a reload. Pure.
public struct OverrideSet: Sendable, Equatable {
    public struct Override: Sendable, Equatable {
        public var config: OverrideConfig
        /// What it plays; empty when nothing could be found (`problem` says why).
        public var entries: [PlaylistEntry]
        public var problem: String?

        public var name: String { config.name }

        public init(config: OverrideConfig, entries: [PlaylistEntry], problem: String? = nil) {
            self.config = config; self.entries = entries; self.problem = problem
        }
    }

    public let overrides: [Override]

    public init(_ overrides: [Override] = []) { self.overrides = overrides }

    public init(_ configs: [OverrideConfig], defaultEntries: [PlaylistEntry], playlists: [String: [PlaylistEntry]],
                expand: ([ItemConfig]) -> (entries: [PlaylistEntry], problems: [String])) {
        overrides = configs.map { config in
            let (entries, problem) = TriggerSet.entries(of: config.content, defaultEntries: defaultEntries,
                                                        playlists: playlists, expand: expand)
            return Override(config: config, entries: entries, problem: problem)
        }
    }

    public var isEmpty: Bool { overrides.isEmpty }
    public var names: [String] { overrides.map(\.name) }

    public func override(named name: String) -> Override? { overrides.first { $0.name == name } }

    /// How many overrides are held open ahead: each holds a decoder and its frame queue (up to
    /// `playback.frame_memory`) while it waits, so only the highest priorities.
    public static let armedLimit = 2

    /// What the engine arms: the first entry of each override that plays a file or a card
    /// (a stream's frames would be old by the time they show), highest priority first,
    /// kiosk.conf's order among equals, at most `armedLimit`.
    public var toArm: [OverrideToArm] {
        let armable = overrides.enumerated().compactMap { place, override -> (Int, Int, OverrideToArm)? in
            guard let first = override.entries.first else { return nil }
            if case .url = first.media { return nil }
            return (override.config.priority, place, OverrideToArm(name: override.name, entry: first))
        }
        return armable.sorted { ($0.0, -$0.1) > ($1.0, -$1.1) }.prefix(Self.armedLimit).map(\.2)
    }
}

/// kiosk.conf's `alerts: {cap: …}` (#35): a CAP 1.2 feed (one `<alert>`, or an Atom or RSS feed
/// of them) polled every `interval`; each alert `CapAlertBook` shows puts the override
/// `override` on screen until the alert ends, its headline in the text layer `textLayer`.
public struct CapFeedConfig: Sendable, Equatable {
    /// `url`: http(s).
    public var url: String
    /// `interval`: between polls (default 30 s).
    public var interval: MediaTime
    /// `areas`, `min_severity`, `min_urgency`, `default_duration`.
    public var filter: CapAlertBook.Filter
    /// `override`: one of `overrides:`, what an alert shows.
    public var override: String
    /// `text_layer`: a text or ticker layer of `layers:` that shows the alert's headline and
    /// instruction while it is on (shown then, hidden after); nil: none.
    public var textLayer: String?

    public init(url: String, interval: MediaTime = MediaTime(value: 30, timescale: 1), filter: CapAlertBook.Filter = .init(),
                override: String, textLayer: String? = nil) {
        self.url = url
        self.interval = interval
        self.filter = filter
        self.override = override
        self.textLayer = textLayer
    }
}
