import CEvdev

/// One evdev event as the pure parts of this module take it: a copy of `struct input_event`
/// with the time already in seconds, so tests can replay recorded sequences without a device.
public struct InputEvent: Sendable, Hashable, CustomStringConvertible {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    /// The kernel's timestamp, in seconds on CLOCK_MONOTONIC (the reader asks for that clock).
    public var time: Double

    public init(type: UInt16, code: UInt16, value: Int32, time: Double) {
        self.type = type; self.code = code; self.value = value; self.time = time
    }

    public var description: String {
        let typeName = libevdev_event_type_get_name(UInt32(type)).map { String(cString: $0) } ?? "type \(type)"
        let codeName = libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) } ?? "code \(code)"
        return "\(typeName) \(codeName) \(value) @\(time)"
    }
}

/// The kernel's event numbers (linux/input-event-codes.h), typed the way `InputEvent` holds
/// them. The C macros import as Int32; converting once here keeps the call sites readable.
public enum EvdevCode {
    public static let synType = UInt16(EV_SYN)
    public static let keyType = UInt16(EV_KEY)
    public static let absType = UInt16(EV_ABS)

    public static let synReport = UInt16(SYN_REPORT)
    public static let synDropped = UInt16(SYN_DROPPED)

    public static let absX = UInt16(ABS_X)
    public static let absY = UInt16(ABS_Y)
    public static let mtSlot = UInt16(ABS_MT_SLOT)
    public static let mtPositionX = UInt16(ABS_MT_POSITION_X)
    public static let mtPositionY = UInt16(ABS_MT_POSITION_Y)
    public static let mtTrackingID = UInt16(ABS_MT_TRACKING_ID)

    public static let btnTouch = UInt16(BTN_TOUCH)
    /// Touchpads report finger counts with BTN_TOOL_FINGER; touchscreens usually do not.
    public static let btnToolFinger = UInt16(BTN_TOOL_FINGER)

    public static let propPointer = UInt16(INPUT_PROP_POINTER)
    public static let propDirect = UInt16(INPUT_PROP_DIRECT)

    public static let keyMax = UInt16(KEY_MAX)
    public static let absMax = UInt16(ABS_MAX)
    public static let propMax = UInt16(INPUT_PROP_MAX)

    /// The code of an EV_KEY name such as KEY_SPACE or BTN_LEFT, if libevdev knows it.
    public static func keyCode(named name: String) -> UInt16? {
        let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
        return code >= 0 ? UInt16(code) : nil
    }

    /// The name of an absolute axis (ABS_MT_POSITION_X), for probe output.
    public static func absName(_ code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(EV_ABS), UInt32(code)).map { String(cString: $0) } ?? "ABS_\(code)"
    }
}
