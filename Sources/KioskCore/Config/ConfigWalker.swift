import Yams

/// The keys present in one YAML mapping, after unknown and duplicated keys were reported.
struct SectionMap {
    /// How messages name this mapping: "playback", "input.keys", "items[3]".
    let name: String
    let node: Node
    private(set) var values: [String: Node] = [:]
    /// The keys as written, for messages that name where a key is ("'items' at 3:1").
    private(set) var keys: [String: Node] = [:]

    init(name: String, node: Node) { self.name = name; self.node = node }

    subscript(key: String) -> Node? { values[key] }
    func keyNode(_ key: String) -> Node? { keys[key] }
    /// Whether the map held keys that were not taken (unknown or repeated ones, reported).
    var hasUntakenKeys: Bool { (node.mapping?.count ?? 0) > values.count }
    mutating func set(_ key: String, _ value: Node, keyNode: Node) {
        values[key] = value
        keys[key] = keyNode
    }
}

/// Walks the YAML tree of one file and collects every problem with its position.
/// Lives for one parse on one thread; not shared.
final class ConfigWalker {
    let fileName: String
    let ignoredKeys: Set<TextPosition>
    private(set) var diagnostics: [ConfigDiagnostic] = []
    /// The content sync store, known before the items are read: `- sync: true` lists it.
    var syncDirectory = ContentSyncConfig.defaultDirectory
    /// The top-level keys an unknown one was taken for a near miss of ("itmes: did you mean
    /// 'items'?"): a check that the key is missing stays quiet about it (one line for one typo).
    private(set) var misspelledKeys: Set<String> = []
    /// What is legal but most likely a typo (a window from 10:00 to 10:00): `kiosk check`
    /// prints these as warnings and the file still loads.
    private(set) var warnings: [ConfigDiagnostic] = []

    init(fileName: String, ignoredKeys: Set<TextPosition>) {
        self.fileName = fileName
        self.ignoredKeys = ignoredKeys
    }

    func location(of node: Node?) -> SourceLocation {
        let mark = node?.mark
        return SourceLocation(file: fileName, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    /// A message is one line of the log whatever the file held (a key or value with a line
    /// break in it would start a line of its own).
    func report(_ node: Node?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(location: location(of: node), message: withControlCharactersEscaped(message)))
    }

    func warn(_ node: Node?, _ message: String) {
        warnings.append(ConfigDiagnostic(location: location(of: node), message: "warning: " + withControlCharactersEscaped(message)))
    }

    // MARK: Mappings

    /// The mapping in `node`, keyed by name; unknown keys are reported with a suggestion.
    /// `node` nil or an empty value gives an empty map (all defaults).
    /// An element of a list that must be a map (a schedule entry, an insert, a trigger, a
    /// power window): one error naming it by `label` ("trigger 2") when it is not.
    func listedSection(_ node: Node, label: String, allowedKeys: [String]) -> SectionMap? {
        guard node.mapping != nil else {
            report(node, "\(label) is \(describe(node)); expected a map of \(allowedKeys.joined(separator: ", "))")
            return nil
        }
        return section(node, name: label, allowedKeys: allowedKeys)
    }

    func section(_ node: Node?, name: String, allowedKeys: [String]) -> SectionMap? {
        guard let node, !isNull(node) else { return nil }
        guard let mapping = node.mapping else {
            report(node, "'\(name)' is \(describe(node)); expected a map of \(allowedKeys.joined(separator: ", "))")
            return nil
        }
        var section = SectionMap(name: name, node: node)
        for (keyNode, value) in mapping {
            if let mark = keyNode.mark, ignoredKeys.contains(TextPosition(mark)) { continue }
            guard let key = keyNode.scalar?.string else {
                report(keyNode, "a key in \(name) is \(describe(keyNode)); expected a plain name")
                continue
            }
            guard allowedKeys.contains(key) else {
                let near = nearMiss(for: key, among: allowedKeys)
                if let near, name == "the file" { misspelledKeys.insert(near) }
                report(keyNode, "unknown key '\(quotedForMessage(key))' in \(name); expected one of: "
                       + allowedKeys.joined(separator: ", ") + (near.map { " (did you mean '\($0)'?)" } ?? ""))
                continue
            }
            section.set(key, value, keyNode: keyNode)
        }
        return section
    }

    // MARK: Scalars

    func isNull(_ node: Node) -> Bool {
        guard let scalar = node.scalar else { return false }
        return scalar.style == .plain && node.tag.rawValue == Tag.Name.null.rawValue
    }

    /// A plain scalar's YAML type (int, float, bool, null, timestamp, str); nil for quoted text.
    private func plainType(_ node: Node) -> String? {
        guard let scalar = node.scalar, scalar.style == .plain || scalar.style == .any else { return nil }
        return node.tag.rawValue.split(separator: ":").last.map(String.init)
    }

    /// How a value reads in a message: "the string 'loud'", "150", "a list".
    func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a map"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if isNull(node) { return "empty" }
            switch plainType(node) {
            // At most 160 characters of it: a value can be a whole line of a damaged file (a
            // number of 100,000 digits is still a plain int).
            case "int", "float", "bool": return quotedForMessage(scalar.string)
            default: return "the string '\(quotedForMessage(scalar.string))'"
            }
        }
    }

    func bool(_ section: SectionMap, _ key: String) -> Bool? {
        guard let node = section[key] else { return nil }
        guard plainType(node) == "bool", let value = node.bool else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected true or false")
            return nil
        }
        return value
    }

    /// A whole number in `range`; 80.0 counts as 80.
    func integer(_ section: SectionMap, _ key: String, in range: ClosedRange<Int>, unit: String = "") -> Int? {
        guard let node = section[key] else { return nil }
        let expected = "expected a whole number from \(range.lowerBound) to \(range.upperBound)\(unit)"
        var value: Int?
        switch plainType(node) {
        case "int": value = node.int
        case "float": value = node.float.flatMap { $0.isFinite && $0 == $0.rounded() ? Int(exactly: $0) : nil }
        default: break
        }
        guard let value, range.contains(value) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); \(expected)")
            return nil
        }
        return value
    }

    /// Any finite number in `range`.
    func number(_ section: SectionMap, _ key: String, in range: ClosedRange<Double>) -> Double? {
        guard let node = section[key] else { return nil }
        let type = plainType(node)
        guard type == "int" || type == "float", let value = node.float, value.isFinite, range.contains(value) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected a number from "
                   + "\(formatted(range.lowerBound)) to \(formatted(range.upperBound))")
            return nil
        }
        return value
    }

    /// A size in bytes as people write it (`ByteSizeText`: 32M, 512K, 1G, 4096), at least
    /// `minimum`; else one error naming the key, its section and `expected`.
    func byteSize(_ section: SectionMap, _ key: String, atLeast minimum: Int = 0, expected: String) -> Int? {
        guard let node = section[key] else { return nil }
        if let text = node.scalar?.string, !isNull(node), let bytes = ByteSizeText.parse(text), bytes >= minimum { return bytes }
        report(node, "'\(key)' in \(section.name) is \(describe(node)); expected \(expected)")
        return nil
    }

    /// Seconds, exactly: 10, 2.5, 1:30 (m:ss) or 1:02:03.5 (h:mm:ss). Must be above
    /// `minimum` (or equal to it when `allowingMinimum`).
    func seconds(_ section: SectionMap, _ key: String, above minimum: MediaTime = .zero,
                 allowingMinimum: Bool = false) -> MediaTime? {
        guard let node = section[key] else { return nil }
        let type = plainType(node)
        let bound = allowingMinimum ? ">= \(formatted(minimum.seconds))" : "> \(formatted(minimum.seconds))"
        // A plain 0:30 is a string to YAML 1.1 (its sexagesimal numbers start with 1-9, so 1:30
        // was a number and 0:30, 00:04 were refused); a plain m:ss or h:mm:ss is seconds here.
        let clockForm = node.scalar.map { $0.style == .plain && $0.string.contains(":") } ?? false
        guard type == "int" || type == "float" || clockForm, let scalar = node.scalar,
              let value = SecondsText.parse(scalar.string),
              allowingMinimum ? value >= minimum : value > minimum else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected seconds \(bound) "
                   + "(like 10, 2.5 or 1:30)")
            return nil
        }
        return value
    }

    /// Any non-empty scalar, as written (numbers too: a title may be 2024).
    func string(_ section: SectionMap, _ key: String, expected: String) -> String? {
        guard let node = section[key] else { return nil }
        guard let scalar = node.scalar, !isNull(node), !scalar.string.isEmpty else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected \(expected)")
            return nil
        }
        return scalar.string
    }

    /// One of `options` (matched case-insensitively), with a suggestion for near misses.
    func choice<Value>(_ section: SectionMap, _ key: String, _ options: [(name: String, value: Value)],
                       extraNames: (String) -> Value? = { _ in nil }) -> Value? {
        guard let node = section[key] else { return nil }
        let names = options.map(\.name)
        if let text = node.scalar?.string, !isNull(node) {
            if let match = options.first(where: { $0.name.lowercased() == text.lowercased() }) { return match.value }
            if let value = extraNames(text) { return value }
        }
        let hint = node.scalar.map { suggestion(for: $0.string, among: names) } ?? ""
        report(node, "'\(key)' in \(section.name) is \(describe(node)); expected one of: "
               + names.joined(separator: ", ") + hint)
        return nil
    }

    /// The elements of a list, where a single (non-empty) scalar counts as a list of one; nil
    /// for anything else (a map, an empty value), which the caller reports in its words.
    func scalarOrList(_ node: Node) -> [Node]? {
        switch node {
        case .sequence(let sequence): return Array(sequence)
        case .scalar where !isNull(node): return [node]
        default: return nil
        }
    }

    /// A list of non-empty scalars; a single scalar counts as a list of one.
    func stringList(_ section: SectionMap, _ key: String, expected: String) -> [String]? {
        guard let node = section[key] else { return nil }
        guard let elements = scalarOrList(node) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected a list of \(expected)")
            return nil
        }
        var result: [String] = []
        var valid = true
        for element in elements {
            guard let text = element.scalar?.string, !isNull(element), !text.isEmpty else {
                report(element, "an entry of '\(key)' in \(section.name) is \(describe(element)); expected \(expected)")
                valid = false
                continue
            }
            result.append(text)
        }
        return valid ? result : nil
    }

    func formatted(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
