import Yams

/// The web page's schedule (#36), kept in `web.page_file` beside its playlist: entries and timed
/// inserts as kiosk.conf writes them (the same keys, read by the same rules), replacing
/// kiosk.conf's `schedule.entries` and `schedule.inserts` once the page has saved them, and the
/// screen's on-windows (`display.power`, written as `display: {power: [...]}` in the page file,
/// where an empty list means always on); the time zone and `switch` stay kiosk.conf's. Fields are
/// kept as written (text), the rules judge them.
public struct PageSchedule: Sendable, Equatable {
    /// One entry or insert: its keys in kiosk.conf's order, each as written.
    public typealias Fields = [(key: String, value: String)]

    public var entries: [Fields] = []
    public var inserts: [Fields] = []
    /// Whether the file has a `schedule:` (entries and inserts); false: a file with only the
    /// screen's windows, whose entries and inserts stay kiosk.conf's (nothing is written for them).
    public var scheduled = true
    /// `display.power`'s windows (none: the screen is always on); nil: the page has not set them
    /// (a client that sends no "power"), so kiosk.conf's stand.
    public var power: [Fields]?

    public init(entries: [Fields] = [], inserts: [Fields] = [], power: [Fields]? = nil) {
        self.entries = entries
        self.inserts = inserts
        self.power = power
    }

    public static func == (a: PageSchedule, b: PageSchedule) -> Bool {
        func same(_ x: [Fields], _ y: [Fields]) -> Bool {
            x.count == y.count && zip(x, y).allSatisfy { $0.map(\.key) == $1.map(\.key) && $0.map(\.value) == $1.map(\.value) }
        }
        return a.scheduled == b.scheduled && same(a.entries, b.entries) && same(a.inserts, b.inserts) && (a.power == nil) == (b.power == nil)
            && same(a.power ?? [], b.power ?? [])
    }

    /// The JSON keys of each kind, in the order they are written (`dates_from`/`dates_to` are
    /// kiosk.conf's `dates: {from, to}`).
    static let entryKeys = ["name", "playlist", "days", "from", "to", "dates_from", "dates_to", "priority"]
    static let insertKeys = ["name", "at", "days", "dates_from", "dates_to", "item", "playlist"]
    static let powerKeys = ["days", "from", "to", "dates_from", "dates_to"]
    static let kinds = [("entries", entryKeys, "entry"), ("inserts", insertKeys, "insert"), ("power", powerKeys, "window")]

    /// As the page's JSON gives and takes it.
    public var controlValue: ControlValue {
        func list(_ rows: [Fields]) -> ControlValue {
            .array(rows.map { row in .object(row.map { ($0.key, .string($0.value)) }) })
        }
        return .object([("entries", list(entries)), ("inserts", list(inserts)), ("power", power.map(list) ?? .null)])
    }

    /// The page's JSON, checked for shape only (keys, text without line breaks); what the keys
    /// say is for kiosk.conf's rules, which name the page file's line when it is wrong.
    public static func from(_ value: ControlValue) -> Result<PageSchedule, PagePlaylistError> {
        // What GET answers (`{"schedule": {...}, "etag": ...}`) sent back as it came: its
        // "schedule" is the body (it was refused: expected "entries": [...]).
        if value["entries"] == nil, case .object? = value["schedule"], let inner = value["schedule"] { return from(inner) }
        var schedule = PageSchedule()
        for (kind, keys, noun) in kinds {
            // A client of the first API sends no "power": the screen's windows are left as they are.
            if kind == "power" && (value[kind] == nil || value[kind] == .null) { continue }
            guard case .array(let list)? = value[kind] else { return .failure(PagePlaylistError("expected \"\(kind)\": [...]")) }
            guard list.count <= 200 else { return .failure(PagePlaylistError("\(list.count) \(kind); at most 200")) }
            var rows: [Fields] = []
            for (index, element) in list.enumerated() {
                let name = "\(noun) \(index + 1)"
                guard case .object(let pairs) = element else { return .failure(PagePlaylistError("\(name) is not an object")) }
                var row: Fields = []
                for key in keys {
                    guard let field = pairs.first(where: { $0.0 == key })?.1 else { continue }
                    let text: String
                    switch field {
                    case .null: continue
                    case .string(let string): text = string
                    case .integer(let number): text = String(number)
                    default: return .failure(PagePlaylistError("\(name): '\(key)' is \(field.json); expected text"))
                    }
                    guard text.count <= 500, !text.contains(where: { $0.isNewline || $0 == "\u{0}" }) else {
                        return .failure(PagePlaylistError("\(name): '\(key)' is over 500 characters or holds a line break"))
                    }
                    if !text.isEmpty { row.append((key, text)) }
                }
                if let unknown = pairs.first(where: { !keys.contains($0.0) }) {
                    return .failure(PagePlaylistError("\(name): unknown key '\(quotedForMessage(unknown.0))'; expected \(keys.joined(separator: ", "))"))
                }
                rows.append(row)
            }
            switch kind {
            case "entries": schedule.entries = rows
            case "inserts": schedule.inserts = rows
            default: schedule.power = rows
            }
        }
        return .success(schedule)
    }

    /// The `schedule:` lines of the page file (strings in JSON's quoting, which YAML reads).
    var lines: [String] {
        func row(_ fields: Fields) -> String {
            var parts: [String] = []
            var dates: [String] = []
            for (key, value) in fields {
                let quoted = ControlValue.string(value).json
                switch key {
                case "dates_from": dates.append("from: \(quoted)")
                case "dates_to": dates.append("to: \(quoted)")
                case "priority": parts.append("priority: \(Int(value).map(String.init) ?? quoted)")
                default: parts.append("\(key): \(quoted)")
                }
            }
            if !dates.isEmpty { parts.append("dates: {\(dates.joined(separator: ", "))}") }
            return "    - {\(parts.joined(separator: ", "))}"
        }
        let schedule = ["schedule:", entries.isEmpty ? "  entries: []" : "  entries:"] + entries.map(row)
            + [inserts.isEmpty ? "  inserts: []" : "  inserts:"] + inserts.map(row)
        return (scheduled ? schedule : [])
            + (power.map { ["display:", $0.isEmpty ? "  power: []   # always on" : "  power:"] + $0.map(row) } ?? [])
    }

    /// The schedule of a file's YAML nodes (`schedule:` and `display.power`), fields as written;
    /// nil when both are absent.
    public static func read(_ node: Node?, power: Node?) -> PageSchedule? {
        // A list of windows, or one window alone as kiosk.conf allows.
        let windows = power.map { rows($0.sequence.map(Array.init) ?? ($0.mapping != nil ? [$0] : []), keys: powerKeys) }
        guard let map = node?.mapping else {
            guard power != nil else { return nil }
            var only = PageSchedule(power: windows)
            only.scheduled = false
            return only
        }
        return PageSchedule(entries: rows(map["entries"]?.sequence.map(Array.init) ?? [], keys: entryKeys),
                            inserts: rows(map["inserts"]?.sequence.map(Array.init) ?? [], keys: insertKeys), power: windows)
    }

    private static func rows(_ list: [Node], keys: [String]) -> [Fields] {
        list.compactMap { element in
            guard let fields = element.mapping else { return nil }
            var row: Fields = []
            for key in keys {
                if key == "dates_from" || key == "dates_to" {
                    if let value = fields["dates"]?.mapping?[key == "dates_from" ? "from" : "to"]?.scalar?.string {
                        row.append((key, value))
                    }
                } else if let value = fields[key]?.scalar?.string {
                    row.append((key, value))
                } else if let list = fields[key]?.sequence {
                    // days: [mon, wed] as kiosk.conf allows it: the page shows "mon, wed".
                    row.append((key, list.compactMap { $0.scalar?.string }.joined(separator: ", ")))
                }
            }
            return row
        }
    }

    /// kiosk.conf's own entries and inserts are not kept as text; a page without a file of its
    /// own starts from an empty schedule (kiosk.conf's is shown by the dry run).
}
