import Yams

/// The web page's schedule (#36), kept in `web.page_file` beside its playlist: entries and timed
/// inserts as kiosk.conf writes them (the same keys, read by the same rules), replacing
/// kiosk.conf's `schedule.entries` and `schedule.inserts` once the page has saved them; the time
/// zone and `switch` stay kiosk.conf's. Fields are kept as written (text), the rules judge them.
public struct PageSchedule: Sendable, Equatable {
    /// One entry or insert: its keys in kiosk.conf's order, each as written.
    public typealias Fields = [(key: String, value: String)]

    public var entries: [Fields] = []
    public var inserts: [Fields] = []

    public init(entries: [Fields] = [], inserts: [Fields] = []) {
        self.entries = entries
        self.inserts = inserts
    }

    public static func == (a: PageSchedule, b: PageSchedule) -> Bool {
        func same(_ x: [Fields], _ y: [Fields]) -> Bool {
            x.count == y.count && zip(x, y).allSatisfy { $0.map(\.key) == $1.map(\.key) && $0.map(\.value) == $1.map(\.value) }
        }
        return same(a.entries, b.entries) && same(a.inserts, b.inserts)
    }

    /// The JSON keys of each kind, in the order they are written (`dates_from`/`dates_to` are
    /// kiosk.conf's `dates: {from, to}`).
    static let entryKeys = ["name", "playlist", "days", "from", "to", "dates_from", "dates_to", "priority"]
    static let insertKeys = ["name", "at", "days", "dates_from", "dates_to", "item", "playlist"]

    /// As the page's JSON gives and takes it.
    public var controlValue: ControlValue {
        func list(_ rows: [Fields]) -> ControlValue {
            .array(rows.map { row in .object(row.map { ($0.key, .string($0.value)) }) })
        }
        return .object([("entries", list(entries)), ("inserts", list(inserts))])
    }

    /// The page's JSON, checked for shape only (keys, text without line breaks); what the keys
    /// say is for kiosk.conf's rules, which name the page file's line when it is wrong.
    public static func from(_ value: ControlValue) -> Result<PageSchedule, PagePlaylistError> {
        var schedule = PageSchedule()
        for (kind, keys) in [("entries", entryKeys), ("inserts", insertKeys)] {
            guard case .array(let list)? = value[kind] else { return .failure(PagePlaylistError("expected \"\(kind)\": [...]")) }
            guard list.count <= 200 else { return .failure(PagePlaylistError("\(list.count) \(kind); at most 200")) }
            var rows: [Fields] = []
            for (index, element) in list.enumerated() {
                let name = "\(kind == "entries" ? "entry" : "insert") \(index + 1)"
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
                    return .failure(PagePlaylistError("\(name): unknown key '\(unknown.0)'; expected \(keys.joined(separator: ", "))"))
                }
                rows.append(row)
            }
            if kind == "entries" { schedule.entries = rows } else { schedule.inserts = rows }
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
        return ["schedule:", entries.isEmpty ? "  entries: []" : "  entries:"] + entries.map(row)
            + [inserts.isEmpty ? "  inserts: []" : "  inserts:"] + inserts.map(row)
    }

    /// The schedule of a page file's YAML node (`schedule:`), fields as written; nil when absent.
    public static func read(_ node: Node?) -> PageSchedule? {
        guard let map = node?.mapping else { return nil }
        func rows(_ list: Node?, keys: [String]) -> [Fields] {
            guard case .sequence(let sequence)? = list else { return [] }
            return sequence.compactMap { element in
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
        return PageSchedule(entries: rows(map["entries"], keys: entryKeys), inserts: rows(map["inserts"], keys: insertKeys))
    }

    /// kiosk.conf's own entries and inserts are not kept as text; a page without a file of its
    /// own starts from an empty schedule (kiosk.conf's is shown by the dry run).
}
