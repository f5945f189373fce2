import Foundation

/// A JSON value as the control socket speaks it. Decoded with Foundation's JSONDecoder (strict:
/// `true` never reads as 1); encoded here, keys in a fixed order, so that replies and events are
/// one line each and tests can compare them as text.
public enum ControlValue: Sendable, Equatable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([ControlValue])
    /// Keys keep the order they were given in (`object` literals in code); decoded objects
    /// are sorted by key.
    case object([(String, ControlValue)])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let value = try? container.decode(Bool.self) { self = .bool(value); return }
        if let value = try? container.decode(Int64.self) { self = .integer(value); return }
        if let value = try? container.decode(Double.self) { self = .number(value); return }
        if let value = try? container.decode(String.self) { self = .string(value); return }
        if let value = try? container.decode([ControlValue].self) { self = .array(value); return }
        let members = try container.decode([String: ControlValue].self)
        self = .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Parses one JSON text; nil when it is not JSON.
    public static func parse(_ text: String) -> ControlValue? {
        try? JSONDecoder().decode(ControlValue.self, from: Data(text.utf8))
    }

    public static func == (lhs: ControlValue, rhs: ControlValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> ControlValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Compact JSON, no newline.
    public var json: String {
        var text = ""
        append(to: &text)
        return text
    }

    /// The value as a refusal quotes what a client sent: its JSON, cut at 40 characters.
    public var said: String {
        let text = json
        return text.count <= 40 ? text : text.prefix(40) + "…"
    }

    public var description: String { json }

    /// What a person reading `kiosk ctl` output wants: scalars plain, the rest as JSON.
    public var plainText: String {
        switch self {
        case .string(let text): return text
        default: return json
        }
    }

    /// How an argument is named in error messages: its JSON type, and the value when short.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    private func append(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .integer(let value): text += String(value)
        case .number(let value):
            // JSON has no NaN or infinity; a finite whole number keeps a ".0" so readers see a float.
            guard value.isFinite else { text += "null"; return }
            guard abs(value) < 1e15 else { text += "\(value)"; return }
            // Fixed notation to the microsecond (media times), never "1e-06".
            var fixed = String(format: "%.6f", value)
            while fixed.hasSuffix("0") && !fixed.hasSuffix(".0") { fixed.removeLast() }
            text += fixed == "-0.0" ? "0.0" : fixed
        case .string(let value): Self.appendQuoted(value, to: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.append(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                Self.appendQuoted(key, to: &text)
                text += ":"
                value.append(to: &text)
            }
            text += "}"
        }
    }

    private static func appendQuoted(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
