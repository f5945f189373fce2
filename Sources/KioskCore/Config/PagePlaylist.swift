import Yams

/// The web page's playlist (#36): a file of its own (`web.page_file`), never kiosk.conf, so
/// the operator's comments and other keys are never touched. The page reads and writes it as a
/// list of entries; kiosk reads it as `items:` with kiosk.conf's own rules (an error names this
/// file, line and column), and its items replace kiosk.conf's default playlist.
public struct PagePlaylistEntry: Sendable, Equatable {
    /// A file, directory, glob or URL; empty for a card.
    public var path: String
    /// A card's words (#35: kiosk.conf's `text:` item), with its style as kiosk.conf writes it
    /// (`color`, `background`: #rrggbb[aa]; `size`: 48px or 10%), checked by kiosk.conf's rules
    /// when the file is read.
    public var text: String?
    public var style = CardStyle()
    public var title: String?
    /// kiosk.conf's `duration`: how long a still or a live stream stays.
    public var duration: Double?
    public var gravity: VideoGravity?
    public var enabled = true
    /// kiosk.conf's other options of the item (volume, trim, loop...), which the page does not
    /// edit: kept through its saves (`PageItemOptions`), never taken from what it sends.
    public var kept: [KeptItemOption] = []
    /// A `sync: true` entry: the path the page shows is the store's; the file says `sync: true`.
    var isSynced: Bool { kept.contains { $0.key == "sync" } }

    public struct CardStyle: Sendable, Equatable {
        public var color: String?
        public var background: String?
        public var size: String?
        public init(color: String? = nil, background: String? = nil, size: String? = nil) {
            self.color = color; self.background = background; self.size = size
        }
        /// kiosk.conf's style keys of a card, the file's too.
        static let keys = ConfigWalker.cardKeys
        subscript(key: String) -> String? {
            get { key == "color" ? color : key == "background" ? background : size }
            set { if key == "color" { color = newValue } else if key == "background" { background = newValue } else { size = newValue } }
        }
    }

    public init(path: String, title: String? = nil, duration: Double? = nil, gravity: VideoGravity? = nil, enabled: Bool = true) {
        self.path = path
        self.title = title
        self.duration = duration
        self.gravity = gravity
        self.enabled = enabled
    }

    /// As the page's JSON gives and takes it.
    public var controlValue: ControlValue {
        var fields: [(String, ControlValue)] = text.map { [("text", .string($0))] } ?? [("path", .string(path))]
        for key in CardStyle.keys { if let value = style[key] { fields.append((key, .string(value))) } }
        if let title { fields.append(("title", .string(title))) }
        if let duration { fields.append(("duration", .number(duration))) }
        if let gravity { fields.append(("gravity", .string(gravity.rawValue))) }
        fields.append(("enabled", .bool(enabled)))
        return .object(fields)
    }
}

public enum PagePlaylist {
    /// More than a screen's playlist ever needs; a bound on what one request may write.
    public static let entryLimit = 1000

    /// The entries of the page's JSON (`{"items": [...]}`), checked: each message names the entry.
    public static func entries(from value: ControlValue) -> Result<[PagePlaylistEntry], PagePlaylistError> {
        guard case .array(let list)? = value["items"] else { return .failure(.init("expected {\"items\": [...]}")) }
        guard list.count <= entryLimit else { return .failure(.init("\(list.count) items; at most \(entryLimit)")) }
        var entries: [PagePlaylistEntry] = []
        for (index, element) in list.enumerated() {
            let name = "item \(index + 1)"
            guard case .object(let fields) = element else { return .failure(.init("\(name) is not an object")) }
            var entry = PagePlaylistEntry(path: "")
            for (key, field) in fields {
                switch (key, field) {
                case ("path", .string(let path)):
                    guard !path.isEmpty, path.utf8.count <= 4096, !path.contains(where: \.isNewline) else {
                        return .failure(.init("\(name): the path is empty, longer than 4096 bytes or holds a line break"))
                    }
                    entry.path = path
                case ("text", .string(let text)):
                    guard text.contains(where: { !$0.isWhitespace }), text.count <= TextCard.maximumLength,
                          text.utf8.count <= TextCard.maximumBytes else {
                        return .failure(.init("\(name): the card's text is empty or over \(TextCard.maximumLength) characters "
                                              + "(\(TextCard.maximumBytes) bytes)"))
                    }
                    entry.text = text
                case ("color", .string(let value)), ("background", .string(let value)), ("size", .string(let value)):
                    guard !value.isEmpty, value.count <= 32, !value.contains(where: \.isNewline) else {
                        return .failure(.init("\(name): '\(key)' is empty, over 32 characters or holds a line break"))
                    }
                    entry.style[key] = value
                case ("color", .null), ("background", .null), ("size", .null): continue
                case ("title", .string(let title)):
                    guard title.count <= 200, !title.contains(where: \.isNewline) else {
                        return .failure(.init("\(name): the title is over 200 characters or holds a line break"))
                    }
                    entry.title = title.isEmpty ? nil : title
                case ("title", .null), ("duration", .null), ("gravity", .null): continue
                case ("duration", .number(let seconds)) where seconds > 0 && seconds <= 86_400: entry.duration = seconds
                case ("duration", .integer(let seconds)) where seconds > 0 && seconds <= 86_400: entry.duration = Double(seconds)
                case ("gravity", .string(let name)) where VideoGravity(name: name) != nil: entry.gravity = VideoGravity(name: name)
                case ("enabled", .bool(let enabled)): entry.enabled = enabled
                default:
                    return .failure(.init("\(name): '\(key)' is \(field.json); expected path (text), text (a card's words), "
                                          + "color, background, size (a card's style, as kiosk.conf writes it), title (text), "
                                          + "duration (seconds, up to a day), gravity (fit, fill or stretch), enabled (true or false)"))
                }
            }
            guard entry.path.isEmpty != (entry.text == nil) else {
                return .failure(.init("\(name) has " + (entry.path.isEmpty ? "neither a path nor a card's text" : "both a path and a card's text")
                                      + "; expected one of them"))
            }
            guard entry.text != nil || entry.style == PagePlaylistEntry.CardStyle() else {
                return .failure(.init("\(name): color, background and size style a card; expected them with text"))
            }
            entries.append(entry)
        }
        guard entries.contains(where: \.enabled) else { return .failure(.init("no item is enabled; at least one must play")) }
        return .success(entries)
    }

    /// The file's text: YAML whose strings are JSON's (double quotes, escapes), which YAML reads.
    /// A part the page never saved (nil) is left out, so kiosk.conf's own goes on.
    public static func text(_ entries: [PagePlaylistEntry]?, schedule: PageSchedule? = nil) -> String {
        var lines = ["# kiosk's web page writes this file (kiosk.conf's web.page_file): its items replace kiosk.conf's",
                     "# default playlist, its schedule entries and inserts kiosk.conf's, its display.power windows (an",
                     "# empty list: always on) kiosk.conf's. An edit by hand is read at the",
                     "# next reload; the page's next save writes the whole file again."]
        if let entries {
            lines.append("items:")
            for entry in entries {
                var fields = entry.isSynced ? [] : [entry.text.map { "text: \(quoted($0))" } ?? "path: \(quoted(entry.path))"]
                for key in PagePlaylistEntry.CardStyle.keys {
                    if let value = entry.style[key] { fields.append("\(key): \(quoted(value))") }
                }
                if let title = entry.title { fields.append("title: \(quoted(title))") }
                if let duration = entry.duration { fields.append("duration: \(ControlValue.number(duration).json)") }
                if let gravity = entry.gravity { fields.append("gravity: \(gravity.rawValue)") }
                if !entry.enabled { fields.append("enabled: false") }
                fields += entry.kept.map { "\($0.key): \($0.yaml)" }
                lines.append("  - {\(fields.joined(separator: ", "))}")
            }
        }
        if let schedule { lines += schedule.lines }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A string as a double-quoted YAML scalar: JSON's escapes, and `\u` for what libyaml would
    /// not read back as it was (NEL, U+2028 and U+2029 are line breaks to it, folded into a space;
    /// C1 controls, U+FFFE and U+FFFF make it refuse the file). A card's words may hold them.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in ControlValue.string(text).json.unicodeScalars {
            switch scalar.value {
            case 0x7F...0x9F, 0x2028, 0x2029, 0xFFFE, 0xFFFF: out += String(format: "\\u%04X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// What a page file holds, as the page shows it: its items (disabled ones too) and schedule,
    /// each nil where the file has none. Nil when the text is not YAML of that shape.
    /// `syncDirectory`: the store a `sync: true` entry shows as its path.
    public static func contents(ofText text: String, syncDirectory: String = ContentSyncConfig.defaultDirectory)
        -> (items: [PagePlaylistEntry]?, schedule: PageSchedule?)? {
        guard let root = try? Yams.compose(yaml: text), let map = root.mapping else { return nil }
        var items: [PagePlaylistEntry]?
        if let node = map["items"] {
            guard case .sequence(let list) = node else { return nil }
            var entries: [PagePlaylistEntry] = []
            for node in list {
                if let path = node.scalar?.string {
                    entries.append(PagePlaylistEntry(path: path))
                    continue
                }
                guard let map = node.mapping else { return nil }
                let text = map["text"]?.scalar?.string
                let synced = map["sync"] != nil ? writtenPath(of: .synced(syncDirectory)) : nil
                guard let path = map["path"]?.scalar?.string ?? synced ?? (text == nil ? nil : "") else { return nil }
                var entry = PagePlaylistEntry(path: path, title: map["title"]?.scalar?.string, duration: map["duration"]?.float,
                                              gravity: map["gravity"]?.scalar.flatMap { VideoGravity(name: $0.string) },
                                              enabled: map["enabled"]?.bool ?? true)
                entry.text = text
                entry.kept = PageItemOptions.kept(of: map)
                for key in PagePlaylistEntry.CardStyle.keys { entry.style[key] = map[key]?.scalar?.string }
                entries.append(entry)
            }
            items = entries
        }
        return (items, PageSchedule.read(map["schedule"], power: map["display"]?.mapping?["power"]))
    }

    /// The entries of kiosk.conf's own default playlist, for a page that has written none yet,
    /// with the options the page does not edit (`kept`, one list per item) where known.
    public static func entries(of items: [ItemConfig], kept: [[KeptItemOption]]? = nil) -> [PagePlaylistEntry] {
        let kept = kept?.count == items.count ? kept : nil
        return items.enumerated().map { index, item in
            var entry = PagePlaylistEntry(path: Self.writtenPath(of: item.source), title: item.title,
                                          duration: item.duration?.seconds, gravity: item.gravity)
            if case .card(let card) = item.source {
                entry.path = ""
                entry.text = card.text
                entry.style = .init(color: card.color == .white ? nil : card.color.written,
                                    background: card.background == TextCard.defaultBackground ? nil : card.background.written,
                                    size: card.size?.written)
            }
            entry.kept = kept?[index] ?? []
            if case .synced = item.source, !entry.isSynced { entry.kept.append(KeptItemOption(key: "sync", yaml: "true")) }
            return entry
        }
    }

    /// The path as an item of the page's file would say it (a directory ends in /).
    static func writtenPath(of source: ItemSource) -> String {
        switch source {
        case .file(let path), .url(let path), .glob(let path): return path
        case .directory(let path), .tree(let path): return path.hasSuffix("/") ? path : path + "/"
        case .synced(let store): return store.hasSuffix("/") ? store : store + "/"
        // A card's entry carries its words instead (`entries(of:)`); its name where a path is asked.
        case .card(let card): return card.name
        }
    }

    /// A tag of the file's bytes for `ETag`/`If-Match`: two browsers editing at once are told
    /// of each other (FNV-1a, 64 bits: a change detector, not a secret).
    public static func tag(of bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - digits.count) + digits + "\""
    }

    /// `config` with the page file's enabled items as its default playlist; the file's errors
    /// are kiosk.conf's kind of errors, naming this file.
    public static func merged(into config: KioskConfig, fileName: String, text: String, baseDirectory: String,
                              fileSystem: any PlaylistFileSystem = LocalFileSystem()) throws(ConfigError) -> KioskConfig {
        let document = YAMLDocumentComposer.compose(text, fileName: fileName)
        let walker = ConfigWalker(fileName: fileName, ignoredKeys: document.ignoredKeys)
        walker.syncDirectory = config.sync.content.directory   // `sync: true` lists kiosk.conf's store
        var items: [ItemConfig]?
        var schedule: ScheduleConfig?
        var power: [ScheduleWindow]?
        if let root = document.root,
           let top = walker.section(root, name: "the page's file", allowedKeys: ["items", "schedule", "display"]) {
            if let node = top["items"] {
                // The page's list replaces kiosk.conf's items: the default playlist.
                items = walker.readItemList(node, listName: "items", baseDirectory: baseDirectory, fileSystem: fileSystem,
                                            playlist: KioskConfig.defaultPlaylistName)
            }
            if let node = top["schedule"] {
                schedule = walker.readSchedule(node, playlistNames: config.playlistNames, baseDirectory: baseDirectory,
                                               fileSystem: fileSystem)
            }
            if let node = top["display"], let display = walker.section(node, name: "display", allowedKeys: ["power"]) {
                // The page's windows replace kiosk.conf's; its empty list is "always on" (which
                // kiosk.conf says by leaving `power` out).
                if case .sequence(let list)? = display["power"], list.isEmpty { power = [] }
                else if display["power"] != nil { power = walker.powerWindows(display["power"]) }
            }
            if top["items"] == nil && top["schedule"] == nil && !top.hasUntakenKeys {
                walker.report(root, "the page's file has neither 'items' nor 'schedule'")
            }
        } else if document.diagnostics.isEmpty && document.root == nil {
            walker.report(nil, "the page's file is empty; expected 'items' or 'schedule'")
        }
        let diagnostics = document.diagnostics + walker.diagnostics
        guard diagnostics.isEmpty else { throw ConfigError(diagnostics: diagnostics) }
        var merged = config
        if let items { merged.items = items }
        if let schedule {
            // The page's entries and inserts; the zone and switch stay kiosk.conf's.
            merged.schedule.entries = schedule.entries
            merged.schedule.entryLocations = schedule.entryLocations
            merged.schedule.inserts = schedule.inserts
        }
        if let power { merged.display.power = power }
        return merged
    }
}

public struct PagePlaylistError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
