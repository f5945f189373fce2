/// What a key press asks the player to do.
public enum KeyAction: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case toggle
    case seekForward = "seek_forward"
    case seekBackward = "seek_backward"
    case volumeUp = "volume_up"
    case volumeDown = "volume_down"
    case next
    case previous
    case mute

    /// The name kiosk.conf uses (`seek_forward`).
    public var configName: String { rawValue }
    public var description: String { rawValue }

    /// Whether holding the key repeats the action (evdev value 2). Seeking and volume step
    /// while held; toggling, muting and changing items once per press, or a held key would
    /// flicker between states or race through the playlist.
    public var repeatsWhileHeld: Bool {
        switch self {
        case .seekForward, .seekBackward, .volumeUp, .volumeDown: true
        case .toggle, .mute, .next, .previous: false
        }
    }
}

/// An evdev key event's value.
public enum KeyTransition: Int32, Sendable, Hashable {
    case released = 0
    case pressed = 1
    /// Autorepeat while held.
    case repeated = 2
}

/// A binding kiosk.conf asked for that cannot be honoured.
public struct KeyMapError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Which keys do what: action -> key names as evdev spells them (`KEY_SPACE`), kept as strings
/// because KioskCore does not import libevdev; KioskInput resolves the names to codes.
public struct KeyMap: Sendable, Hashable {
    public static let defaultBindings: [KeyAction: [String]] = [
        .toggle: ["KEY_SPACE", "KEY_ENTER", "KEY_PLAYPAUSE"],
        .seekForward: ["KEY_RIGHT"],
        .seekBackward: ["KEY_LEFT"],
        .volumeUp: ["KEY_UP"],
        .volumeDown: ["KEY_DOWN"],
        .next: ["KEY_N", "KEY_NEXTSONG"],
        .previous: ["KEY_P", "KEY_PREVIOUSSONG"],
        .mute: ["KEY_M"],
    ]

    /// The default bindings (the tests check they pass the same validation as kiosk.conf's).
    public static let defaults = KeyMap(validated: defaultBindings)

    /// The bindings, key names normalised to upper case.
    public let keysByAction: [KeyAction: [String]]
    private let actionByKey: [String: KeyAction]

    /// Builds a map, refusing names that are not evdev key names and keys bound to two actions
    /// (which one would win is not something to leave to chance). An action may have no keys.
    public init(_ bindings: [KeyAction: [String]]) throws(KeyMapError) {
        var keysByAction: [KeyAction: [String]] = [:]
        var actionByKey: [String: KeyAction] = [:]
        // In declaration order, so that the error for a conflict is always the same one.
        for action in KeyAction.allCases {
            guard let names = bindings[action] else { continue }
            var normalised: [String] = []
            for name in names {
                let key = name.uppercased()
                guard Self.isKeyName(key) else {
                    throw KeyMapError(message: "\(action): '\(name)' is not a key name; use evdev names such as KEY_SPACE or BTN_LEFT")
                }
                if let other = actionByKey[key], other != action {
                    throw KeyMapError(message: "\(key) is bound to both \(other) and \(action); bind each key to one action")
                }
                if actionByKey[key] == nil { normalised.append(key) }
                actionByKey[key] = action
            }
            keysByAction[action] = normalised
        }
        self.keysByAction = keysByAction
        self.actionByKey = actionByKey
    }

    /// For bindings known to be valid: no names to check, no conflicts to report.
    private init(validated bindings: [KeyAction: [String]]) {
        keysByAction = bindings
        var actionByKey: [String: KeyAction] = [:]
        for (action, keys) in bindings { for key in keys { actionByKey[key] = action } }
        self.actionByKey = actionByKey
    }

    /// The defaults with the actions in `overrides` rebound (an action not mentioned keeps its
    /// default keys; an empty list unbinds it).
    public static func defaults(overriding overrides: [KeyAction: [String]]) throws(KeyMapError) -> KeyMap {
        try KeyMap(defaultBindings.merging(overrides) { _, override in override })
    }

    /// The keys bound to `action`; empty when kiosk.conf unbinds it with `[]`.
    public subscript(action: KeyAction) -> [String] { keysByAction[action] ?? [] }

    /// The action bound to `keyName` (any case), if any.
    public func action(forKey keyName: String) -> KeyAction? {
        actionByKey[keyName.uppercased()]
    }

    /// The action to perform for an evdev key event: on press, and on autorepeat only for
    /// actions that repeat while held; never on release. Unknown values (not 0, 1, 2) do nothing.
    public func action(forKey keyName: String, value: Int32) -> KeyAction? {
        guard let transition = KeyTransition(rawValue: value), let action = action(forKey: keyName) else { return nil }
        switch transition {
        case .pressed: return action
        case .repeated: return action.repeatsWhileHeld ? action : nil
        case .released: return nil
        }
    }

    /// evdev's key names: KEY_ or BTN_ followed by capitals, digits and underscores.
    package static func isKeyName(_ name: String) -> Bool {
        let prefixes = ["KEY_", "BTN_"]
        guard let prefix = prefixes.first(where: { name.hasPrefix($0) }), name.count > prefix.count else { return false }
        return name.dropFirst(prefix.count).allSatisfy { ($0.isASCII && ($0.isUppercase || $0.isNumber)) || $0 == "_" }
    }
}
