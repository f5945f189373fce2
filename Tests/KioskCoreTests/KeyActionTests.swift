import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Test func defaultBindingsAreTheDocumentedOnes() throws {
    let map = KeyMap.defaults
    let expected: [String: KeyAction] = [
        "KEY_SPACE": .toggle, "KEY_ENTER": .toggle, "KEY_PLAYPAUSE": .toggle,
        "KEY_RIGHT": .seekForward, "KEY_LEFT": .seekBackward,
        "KEY_UP": .volumeUp, "KEY_DOWN": .volumeDown,
        "KEY_N": .next, "KEY_NEXTSONG": .next,
        "KEY_P": .previous, "KEY_PREVIOUSSONG": .previous,
        "KEY_M": .mute,
    ]
    for (key, action) in expected { #expect(map.action(forKey: key) == action, "\(key)") }
    #expect(map.keysByAction[.toggle] == ["KEY_SPACE", "KEY_ENTER", "KEY_PLAYPAUSE"])
    #expect(Set(map.keysByAction.values.joined()) == Set(expected.keys), "no other key is bound")
    #expect(map.action(forKey: "KEY_Q") == nil)
    // The defaults pass the same checks as a kiosk.conf binding.
    #expect(try KeyMap(KeyMap.defaultBindings) == map)
}

@Test func configNamesRoundTrip() {
    #expect(KeyAction.allCases.map(\.configName) ==
            ["toggle", "seek_forward", "seek_backward", "volume_up", "volume_down", "next", "previous", "mute"])
    #expect(KeyAction(rawValue: "seek_backward") == .seekBackward)
    #expect(KeyAction(rawValue: "seekBackward") == nil)
}

struct KeyEventCase: Sendable, CustomStringConvertible {
    let key: String
    let value: Int32
    let expected: KeyAction?
    var description: String { "\(key) value \(value)" }
}

@Test(arguments: [
    KeyEventCase(key: "KEY_SPACE", value: 1, expected: .toggle),
    KeyEventCase(key: "KEY_SPACE", value: 2, expected: nil),     // held space must not flicker
    KeyEventCase(key: "KEY_SPACE", value: 0, expected: nil),
    KeyEventCase(key: "KEY_RIGHT", value: 1, expected: .seekForward),
    KeyEventCase(key: "KEY_RIGHT", value: 2, expected: .seekForward),
    KeyEventCase(key: "KEY_LEFT", value: 2, expected: .seekBackward),
    KeyEventCase(key: "KEY_UP", value: 2, expected: .volumeUp),
    KeyEventCase(key: "KEY_DOWN", value: 2, expected: .volumeDown),
    KeyEventCase(key: "KEY_DOWN", value: 0, expected: nil),
    KeyEventCase(key: "KEY_N", value: 2, expected: nil),         // held N must not race through items
    KeyEventCase(key: "KEY_PREVIOUSSONG", value: 2, expected: nil),
    KeyEventCase(key: "KEY_M", value: 1, expected: .mute),
    KeyEventCase(key: "KEY_M", value: 2, expected: nil),
    KeyEventCase(key: "KEY_M", value: 7, expected: nil),         // not an evdev key value
    KeyEventCase(key: "key_m", value: 1, expected: .mute),       // names in any case
    KeyEventCase(key: "KEY_Z", value: 1, expected: nil),
])
func keyEventsAndRepeat(_ event: KeyEventCase) {
    #expect(KeyMap.defaults.action(forKey: event.key, value: event.value) == event.expected)
}

@Test func repeatIsForSeekingAndVolumeOnly() {
    #expect(KeyAction.allCases.filter(\.repeatsWhileHeld) == [.seekForward, .seekBackward, .volumeUp, .volumeDown])
}

@Test func overridesReplaceOneActionsKeys() throws {
    let map = try KeyMap.defaults(overriding: [.toggle: ["KEY_K", "btn_left"], .mute: []])
    #expect(map.action(forKey: "KEY_K") == .toggle)
    #expect(map.action(forKey: "BTN_LEFT") == .toggle)
    #expect(map.action(forKey: "KEY_SPACE") == nil, "the old toggle keys are unbound")
    #expect(map.action(forKey: "KEY_M") == nil, "an empty list unbinds")
    #expect(map.action(forKey: "KEY_RIGHT") == .seekForward, "other actions keep their defaults")
    #expect(map.keysByAction[.toggle] == ["KEY_K", "BTN_LEFT"])
}

@Test func conflictingAndMalformedBindingsAreRefusedWithTheReason() throws {
    #expect(throws: KeyMapError(message: "KEY_RIGHT is bound to both seek_forward and next; bind each key to one action")) {
        try KeyMap.defaults(overriding: [.next: ["KEY_RIGHT"]])
    }
    #expect(throws: KeyMapError(message: "toggle: 'space' is not a key name; use evdev names such as KEY_SPACE or BTN_LEFT")) {
        try KeyMap([.toggle: ["space"]])
    }
    for bad in ["KEY_", "KEY_SP ACE", "", "KEY_SPÄCE", "ABS_X"] {
        #expect(throws: KeyMapError.self, "\(bad)") { try KeyMap([.mute: [bad]]) }
    }
    // The same key twice for one action is harmless: kept once.
    #expect(try KeyMap([.mute: ["KEY_M", "key_m"]]).keysByAction[.mute] == ["KEY_M"])
}
