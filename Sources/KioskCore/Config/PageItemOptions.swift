import Yams

/// An item's option the web page does not edit (volume, trim, loop, transition, sync...), as
/// kiosk.conf or the page's file wrote it: flow YAML, written back as it was. A save from the
/// page kept only the keys it shows, so a trimmed, looped, quieter clip lost all three.
public struct KeptItemOption: Sendable, Equatable {
    public var key: String
    /// The value as flow YAML (`40`, `"1:30"`, `{type: fade, duration: 0.5}`).
    public var yaml: String

    public init(key: String, yaml: String) { self.key = key; self.yaml = yaml }
}

public enum PageItemOptions {
    /// The keys of an item the page shows and edits; every other key is kept as written.
    static let pageKeys = Set(["path", "text", "title", "duration", "gravity", "enabled"] + PagePlaylistEntry.CardStyle.keys)

    /// The keys of an item map that the page does not edit, in the order written.
    static func kept(of mapping: Node.Mapping) -> [KeptItemOption] {
        mapping.compactMap { key, value in
            guard let name = key.scalar?.string, !pageKeys.contains(name) else { return nil }
            return KeptItemOption(key: name, yaml: flow(value))
        }
    }

    /// `node` as flow YAML that reads back as the same value: a plain scalar stays plain (so
    /// 40 stays a number and true a bool) unless it holds what flow style gives a meaning to;
    /// a quoted or block one is double-quoted with JSON's escapes; maps and lists nest.
    static func flow(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            let text = scalar.string
            let flowMarks = text.contains(where: { ",[]{}#\"'\n".contains($0) }) || text.contains(": ") || text.hasSuffix(":")
            if scalar.style == .plain, !text.isEmpty, !flowMarks, resolved(text) == node.tag { return text }
            if node.tag.rawValue == Tag.Name.str.rawValue { return PagePlaylist.quoted(text) }
            // A tag the text alone would not give (`!!float 1`, `!!int "40"`): said explicitly.
            return "!<\(node.tag.rawValue)> " + PagePlaylist.quoted(text)
        case .mapping(let mapping):
            return "{" + mapping.map { "\(flow($0.key)): \(flow($0.value))" }.joined(separator: ", ") + "}"
        case .sequence(let sequence):
            return "[" + sequence.map(flow).joined(separator: ", ") + "]"
        case .alias:
            return "null"
        }
    }

    /// The tag a plain scalar of `text` gets in flow context (`!!str 40` is a string, plain 40
    /// is a number: written plain, it came back another type).
    static func resolved(_ text: String) -> Tag? {
        (try? Yams.compose(yaml: "[" + text + "]"))?.sequence?.first?.tag
    }

    /// The kept options of kiosk.conf's default playlist (`items`, else `playlists.default`),
    /// one list per item as ConfigLoader reads them (disabled ones left out, as it leaves them);
    /// nil when the text is not that shape.
    public static func keptPerItem(ofConfigText text: String) -> [[KeptItemOption]]? {
        guard let root = try? Yams.compose(yaml: text), let map = root.mapping else { return nil }
        guard case .sequence(let list)? = map["items"] ?? map["playlists"]?.mapping?["default"] else { return nil }
        return list.filter { $0.mapping?["enabled"]?.bool != false }.map { element in
            element.mapping.map(kept(of:)) ?? []
        }
    }

    /// The page's new list with the options each entry had in the list it was read from (`old`):
    /// an entry is the same one by its path (a card: its words), the n-th of equal ones the n-th.
    /// What the page sends never carries options; one it added has none.
    public static func carrying(_ new: [PagePlaylistEntry], from old: [PagePlaylistEntry]) -> [PagePlaylistEntry] {
        let before = Dictionary(grouping: old, by: identity(of:))
        var seen: [String: Int] = [:]
        return new.map { entry in
            var entry = entry
            let matches = before[identity(of: entry)] ?? []
            let occurrence = seen[identity(of: entry), default: 0]
            seen[identity(of: entry)] = occurrence + 1
            if occurrence < matches.count { entry.kept = matches[occurrence].kept }
            return entry
        }
    }

    /// What makes two entries the same one: a card's words, else the path.
    static func identity(of entry: PagePlaylistEntry) -> String {
        entry.text.map { "text:" + $0 } ?? "path:" + entry.path
    }
}
