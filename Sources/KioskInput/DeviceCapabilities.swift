/// An absolute axis as the device advertises it (struct input_absinfo).
public struct AxisRange: Sendable, Hashable, Codable {
    public var minimum: Int
    public var maximum: Int
    /// Units per millimetre; 0 when the driver does not say.
    public var resolution: Int

    public init(minimum: Int, maximum: Int, resolution: Int = 0) {
        self.minimum = minimum; self.maximum = maximum; self.resolution = resolution
    }

    public var range: ClosedRange<Int> { minimum...Swift.max(minimum, maximum) }
}

/// What an evdev device can report, read once when it is opened. Pure data, so classification
/// is tested from capability sets without hardware.
public struct DeviceCapabilities: Sendable, Hashable {
    public var name: String
    /// EV_KEY codes (keys and buttons) the device can send.
    public var keys: Set<UInt16>
    /// EV_ABS codes with their ranges.
    public var absoluteAxes: [UInt16: AxisRange]
    /// INPUT_PROP_* bits (INPUT_PROP_DIRECT marks a touchscreen, INPUT_PROP_POINTER a touchpad).
    public var properties: Set<UInt16>

    public init(name: String, keys: Set<UInt16> = [], absoluteAxes: [UInt16: AxisRange] = [:],
                properties: Set<UInt16> = []) {
        self.name = name; self.keys = keys; self.absoluteAxes = absoluteAxes; self.properties = properties
    }

    /// How touches are reported, if the device can touch at all.
    public var touchProtocol: TouchProtocol? {
        guard keys.contains(EvdevCode.btnTouch) || absoluteAxes[EvdevCode.mtSlot] != nil else { return nil }
        if absoluteAxes[EvdevCode.mtSlot] != nil, let x = absoluteAxes[EvdevCode.mtPositionX],
           let y = absoluteAxes[EvdevCode.mtPositionY] {
            return .multitouchSlots(x: x, y: y)
        }
        // Single-touch, or multi-touch protocol A (no slots): every such driver also reports
        // the first contact as ABS_X/ABS_Y with BTN_TOUCH, which is all the gestures need.
        if keys.contains(EvdevCode.btnTouch), let x = absoluteAxes[EvdevCode.absX], let y = absoluteAxes[EvdevCode.absY] {
            return .singleTouch(x: x, y: y)
        }
        return nil
    }

    /// A touchscreen, as opposed to a touchpad or a graphics tablet's pointer: the kernel marks
    /// it INPUT_PROP_DIRECT. Old drivers set no property at all; a device without DIRECT is
    /// still taken for a touchscreen when nothing says it is a touchpad (INPUT_PROP_POINTER,
    /// BTN_TOOL_FINGER), as libinput does.
    public var isTouchscreen: Bool {
        guard touchProtocol != nil else { return false }
        if properties.contains(EvdevCode.propDirect) { return true }
        return !properties.contains(EvdevCode.propPointer) && !keys.contains(EvdevCode.btnToolFinger)
    }
}

/// The two ways a touch device reports contacts that kiosk reads.
public enum TouchProtocol: Sendable, Hashable {
    /// Multi-touch protocol B: ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y.
    case multitouchSlots(x: AxisRange, y: AxisRange)
    /// ABS_X/ABS_Y with BTN_TOUCH: one contact.
    case singleTouch(x: AxisRange, y: AxisRange)

    public var xAxis: AxisRange {
        switch self { case .multitouchSlots(let x, _), .singleTouch(let x, _): x }
    }
    public var yAxis: AxisRange {
        switch self { case .multitouchSlots(_, let y), .singleTouch(_, let y): y }
    }
}

/// What kiosk uses a device for.
public struct DeviceRoles: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Its touches become gestures.
    public static let touch = DeviceRoles(rawValue: 1)
    /// Its keys become key actions.
    public static let keys = DeviceRoles(rawValue: 2)

    /// How `kiosk probe` names it.
    public var kind: String {
        switch (contains(.touch), contains(.keys)) {
        case (true, true): "touchscreen+keys"
        case (true, false): "touchscreen"
        case (false, true): "keyboard"
        case (false, false): "other"
        }
    }
}

/// Decides which devices kiosk reads and what for.
public enum DeviceClassifier {
    /// - Parameters:
    ///   - boundKeys: the key codes kiosk.conf's key map binds. A device with none of them
    ///     (a power button, a mouse, a lid switch) is not read: nothing it says would do anything.
    ///   - listed: the device was named in kiosk.conf's `devices`. Then any touch device is
    ///     used for touch, touchpads too: the user asked for it.
    public static func roles(of capabilities: DeviceCapabilities, boundKeys: Set<UInt16>, listed: Bool = false) -> DeviceRoles {
        var roles: DeviceRoles = []
        if capabilities.isTouchscreen || (listed && capabilities.touchProtocol != nil) { roles.insert(.touch) }
        if !capabilities.keys.isDisjoint(with: boundKeys) { roles.insert(.keys) }
        return roles
    }
}
