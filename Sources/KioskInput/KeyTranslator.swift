import KioskCore

/// kiosk.conf's key map with the names resolved to this kernel's key codes once, so the reader
/// thread looks up a code per key event instead of a name.
public struct KeyTranslator: Sendable {
    public let keyMap: KeyMap
    private let nameByCode: [UInt16: String]
    /// Names in the map this system does not know (KEY_FOO passes kiosk.conf's syntax check
    /// but is no key): reported once at start, then ignored.
    public let unknownNames: [String]

    /// - Parameter codeForName: resolves a name; libevdev's table by default, a fixed one in tests.
    public init(keyMap: KeyMap, codeForName: (String) -> UInt16? = EvdevCode.keyCode(named:)) {
        self.keyMap = keyMap
        var nameByCode: [UInt16: String] = [:]
        var unknown: [String] = []
        for action in KeyAction.allCases {
            for name in keyMap[action] {
                if let code = codeForName(name) { nameByCode[code] = name } else { unknown.append(name) }
            }
        }
        self.nameByCode = nameByCode
        self.unknownNames = unknown
    }

    /// The codes any action is bound to: a device with none of them is not worth reading.
    public var boundCodes: Set<UInt16> { Set(nameByCode.keys) }

    /// The action for an EV_KEY event, with KeyMap's rules for autorepeat and release.
    public func action(for event: InputEvent) -> KeyAction? {
        guard event.type == EvdevCode.keyType, let name = nameByCode[event.code] else { return nil }
        return keyMap.action(forKey: name, value: event.value)
    }
}
