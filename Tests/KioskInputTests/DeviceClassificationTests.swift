import CEvdev
import KioskCore
import Testing
@testable import KioskInput

private func key(_ name: String) -> UInt16 { EvdevCode.keyCode(named: name)! }
private func keys(_ names: String...) -> Set<UInt16> { Set(names.map(key)) }
private let axis = AxisRange(minimum: 0, maximum: 4095, resolution: 12)
private let mtAxes: [UInt16: AxisRange] = [
    EvdevCode.absX: axis, EvdevCode.absY: axis, EvdevCode.mtSlot: AxisRange(minimum: 0, maximum: 9),
    EvdevCode.mtPositionX: axis, EvdevCode.mtPositionY: axis, EvdevCode.mtTrackingID: AxisRange(minimum: 0, maximum: 65535),
]
private let defaultKeys = KeyTranslator(keyMap: .defaults).boundCodes

struct DeviceCase: Sendable, CustomStringConvertible {
    let name: String
    let capabilities: DeviceCapabilities
    let listed: Bool
    let expected: DeviceRoles
    var description: String { name }
}

/// Capability sets as real devices report them (names from their drivers).
let deviceTable: [DeviceCase] = [
    DeviceCase(name: "multi-touch panel marked direct", capabilities: DeviceCapabilities(
        name: "ILITEK ILITEK-TP", keys: keys("BTN_TOUCH"), absoluteAxes: mtAxes, properties: [EvdevCode.propDirect]),
               listed: false, expected: .touch),
    DeviceCase(name: "touchpad: pointer property and finger tools", capabilities: DeviceCapabilities(
        name: "SynPS/2 Synaptics TouchPad", keys: keys("BTN_TOUCH", "BTN_TOOL_FINGER", "BTN_TOOL_DOUBLETAP", "BTN_LEFT"),
        absoluteAxes: mtAxes, properties: [EvdevCode.propPointer]), listed: false, expected: []),
    DeviceCase(name: "a touchpad named in input.devices is read for touch", capabilities: DeviceCapabilities(
        name: "SynPS/2 Synaptics TouchPad", keys: keys("BTN_TOUCH", "BTN_TOOL_FINGER"),
        absoluteAxes: mtAxes, properties: [EvdevCode.propPointer]), listed: true, expected: .touch),
    DeviceCase(name: "old single-touch resistive panel without properties", capabilities: DeviceCapabilities(
        name: "ADS7846 Touchscreen", keys: keys("BTN_TOUCH"), absoluteAxes: [EvdevCode.absX: axis, EvdevCode.absY: axis]),
               listed: false, expected: .touch),
    DeviceCase(name: "absolute pointer without BTN_TOUCH (QEMU tablet)", capabilities: DeviceCapabilities(
        name: "QEMU USB Tablet", keys: keys("BTN_LEFT", "BTN_RIGHT"), absoluteAxes: [EvdevCode.absX: axis, EvdevCode.absY: axis]),
               listed: false, expected: []),
    DeviceCase(name: "AT keyboard", capabilities: DeviceCapabilities(
        name: "AT Translated Set 2 keyboard", keys: keys("KEY_ESC", "KEY_SPACE", "KEY_ENTER", "KEY_LEFT", "KEY_RIGHT", "KEY_A")),
               listed: false, expected: .keys),
    DeviceCase(name: "media remote with play/pause only", capabilities: DeviceCapabilities(
        name: "HID Remote", keys: keys("KEY_PLAYPAUSE", "KEY_VOLUMEUP")), listed: false, expected: .keys),
    DeviceCase(name: "power button: no bound key", capabilities: DeviceCapabilities(
        name: "Power Button", keys: keys("KEY_POWER")), listed: false, expected: []),
    DeviceCase(name: "mouse: no bound key", capabilities: DeviceCapabilities(
        name: "USB Optical Mouse", keys: keys("BTN_LEFT", "BTN_RIGHT", "BTN_MIDDLE")), listed: false, expected: []),
    DeviceCase(name: "panel with a home key bound to nothing, and a bound one", capabilities: DeviceCapabilities(
        name: "Goodix Capacitive TouchScreen", keys: keys("BTN_TOUCH", "KEY_HOMEPAGE", "KEY_ENTER"),
        absoluteAxes: mtAxes, properties: [EvdevCode.propDirect]), listed: false, expected: [.touch, .keys]),
    DeviceCase(name: "slots without position axes is no touch device", capabilities: DeviceCapabilities(
        name: "broken", keys: keys("BTN_TOUCH"), absoluteAxes: [EvdevCode.mtSlot: axis], properties: [EvdevCode.propDirect]),
               listed: false, expected: []),
]

@Suite struct DeviceClassificationTests {
    @Test(arguments: deviceTable)
    func roles(_ c: DeviceCase) {
        #expect(DeviceClassifier.roles(of: c.capabilities, boundKeys: defaultKeys, listed: c.listed) == c.expected)
    }

    @Test func protocolBIsPreferredOverTheSingleTouchEmulation() {
        let wide = AxisRange(minimum: 0, maximum: 32767)
        var axes = mtAxes
        axes[EvdevCode.absX] = wide   // emulation axes may differ; slots use the MT ranges
        let caps = DeviceCapabilities(name: "t", keys: keys("BTN_TOUCH"), absoluteAxes: axes, properties: [EvdevCode.propDirect])
        #expect(caps.touchProtocol == .multitouchSlots(x: axis, y: axis))
        var protocolA = axes
        protocolA[EvdevCode.mtSlot] = nil
        #expect(DeviceCapabilities(name: "a", keys: keys("BTN_TOUCH"), absoluteAxes: protocolA).touchProtocol
                == .singleTouch(x: wide, y: axis))
    }

    @Test func listedDevicesMatchByPathOrName() {
        let selection = DeviceSelection(.listed(["/dev/input/by-id/usb-touch-event", "AT Translated Set 2 keyboard"]))
        let keyboard = DeviceCapabilities(name: "AT Translated Set 2 keyboard", keys: keys("KEY_SPACE"))
        let touch = DeviceCapabilities(name: "eGalax", keys: keys("BTN_TOUCH"), absoluteAxes: mtAxes)
        #expect(selection.roles(paths: ["/dev/input/event0"], capabilities: keyboard, boundKeys: defaultKeys) == .keys)
        #expect(selection.roles(paths: ["/dev/input/event5", "/dev/input/by-id/usb-touch-event"], capabilities: touch,
                                boundKeys: defaultKeys) == .touch)
        #expect(selection.roles(paths: ["/dev/input/event6"], capabilities: touch, boundKeys: defaultKeys) == [],
                "a touchscreen not in the list is not read")
        #expect(!DeviceSelection(.auto).lists(paths: ["/dev/input/event0"], name: "AT Translated Set 2 keyboard"))
    }

    @Test func eventNodesSortInKernelOrder() {
        #expect(EventNodeNames.sorted(["event10", "mice", "event2", "by-id", "event1", "eventX", "mouse0"])
                == ["event1", "event2", "event10"])
    }
}

@Suite struct KeyTranslatorTests {
    private func event(_ name: String, _ value: Int32) -> InputEvent {
        InputEvent(type: EvdevCode.keyType, code: key(name), value: value, time: 0)
    }

    @Test func pressRepeatAndReleaseFollowTheKeyMapRules() throws {
        let translator = KeyTranslator(keyMap: .defaults)
        #expect(translator.action(for: event("KEY_RIGHT", 1)) == .seekForward)
        #expect(translator.action(for: event("KEY_RIGHT", 2)) == .seekForward, "seeking repeats while held")
        #expect(translator.action(for: event("KEY_RIGHT", 0)) == nil)
        #expect(translator.action(for: event("KEY_SPACE", 1)) == .toggle)
        #expect(translator.action(for: event("KEY_SPACE", 2)) == nil, "toggling does not repeat")
        #expect(translator.action(for: event("KEY_A", 1)) == nil)
        // An EV_ABS event whose code happens to equal a bound key's code is not a key.
        #expect(translator.action(for: InputEvent(type: EvdevCode.absType, code: key("KEY_SPACE"), value: 1, time: 0)) == nil)
    }

    @Test func rebindingsAndUnknownNames() throws {
        let map = try KeyMap.defaults(overriding: [.next: ["KEY_PAGEDOWN", "KEY_NO_SUCH_KEY"], .mute: []])
        let translator = KeyTranslator(keyMap: map)
        #expect(translator.action(for: event("KEY_PAGEDOWN", 1)) == .next)
        #expect(translator.action(for: event("KEY_N", 1)) == nil, "KEY_N was next's default, replaced")
        #expect(translator.action(for: event("KEY_M", 1)) == nil, "mute unbound")
        #expect(translator.unknownNames == ["KEY_NO_SUCH_KEY"])
        #expect(translator.boundCodes.contains(key("KEY_PAGEDOWN")) && !translator.boundCodes.contains(key("KEY_M")))
    }
}

@Suite struct InputProbeTests {
    @Test func touchscreenReportListsItsAxes() {
        let caps = DeviceCapabilities(name: "ILITEK", keys: keys("BTN_TOUCH"), absoluteAxes: mtAxes, properties: [EvdevCode.propDirect])
        let report = InputProbe.report(path: "/dev/input/event4", capabilities: caps, translator: KeyTranslator(keyMap: .defaults))
        #expect(report.kind == "touchscreen" && report.touchProtocol == "multitouch")
        #expect(report.axes == [.init(axis: "ABS_MT_POSITION_X", minimum: 0, maximum: 4095, resolution: 12),
                                .init(axis: "ABS_MT_POSITION_Y", minimum: 0, maximum: 4095, resolution: 12)])
        let probe = InputProbe(directory: "/dev/input", devices: [report], error: nil)
        #expect(probe.text.contains("/dev/input/event4 'ILITEK': touchscreen, multitouch"))
        #expect(probe.text.contains("ABS_MT_POSITION_X 0...4095, 12/mm"))
    }

    @Test func keyboardReportNamesItsBoundKeys() {
        let caps = DeviceCapabilities(name: "kbd", keys: keys("KEY_SPACE", "KEY_RIGHT", "KEY_A"))
        let report = InputProbe.report(path: "/dev/input/event0", capabilities: caps, translator: KeyTranslator(keyMap: .defaults))
        #expect(report.kind == "keyboard" && report.axes.isEmpty)
        #expect(Set(report.boundKeys) == ["KEY_SPACE", "KEY_RIGHT"])
    }

    @Test func missingDirectoryIsReportedNotThrown() {
        let probe = InputProbe.run(directory: "/nonexistent/input")
        #expect(probe.devices.isEmpty)
        #expect(probe.error?.contains("/nonexistent/input") == true)
    }
}
