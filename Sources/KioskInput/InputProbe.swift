import Glibc
import KioskCore
import SystemPackage

/// The input devices as `kiosk probe` lists them: what each is, and whether kiosk would read it
/// with the default key map and `devices: auto`. Errors per device are recorded, not thrown.
public struct InputProbe: Sendable, Codable, Hashable {
    public var directory: String
    public var devices: [DeviceReport]
    /// Set when there is nothing to list (no input directory).
    public var error: String?

    public struct AxisReport: Sendable, Codable, Hashable {
        /// ABS_MT_POSITION_X, ABS_X, ...
        public var axis: String
        public var minimum: Int
        public var maximum: Int
        public var resolution: Int
    }

    public struct DeviceReport: Sendable, Codable, Hashable {
        public var path: String
        public var name: String
        /// touchscreen, keyboard, touchscreen+keys, or other (not read by kiosk).
        public var kind: String
        /// For a touchscreen: multitouch (protocol B slots) or single-touch.
        public var touchProtocol: String?
        /// The axes touches are read from, for a touchscreen.
        public var axes: [AxisReport]
        /// Keys bound in the default key map that the device has (KEY_SPACE, ...).
        public var boundKeys: [String]
        public var error: String?
    }

    /// Looks at every /dev/input/eventN (opening each read-only, without grabbing).
    public static func run(directory: String = "/dev/input", keyMap: KeyMap = .defaults) -> InputProbe {
        var probe = InputProbe(directory: directory, devices: [], error: nil)
        guard let dir = opendir(directory) else {
            probe.error = "\(directory): \(Errno(rawValue: errno).description); no input devices"
            return probe
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        closedir(dir)
        let translator = KeyTranslator(keyMap: keyMap)
        for name in EventNodeNames.sorted(names) {
            let path = directory + "/" + name
            do throws(InputDeviceError) {
                let device = try EvdevDevice(path: path)
                probe.devices.append(report(path: path, capabilities: device.capabilities, translator: translator))
            } catch {
                probe.devices.append(DeviceReport(path: path, name: "", kind: "unknown", touchProtocol: nil, axes: [],
                                                  boundKeys: [], error: error.description))
            }
        }
        if probe.devices.isEmpty { probe.error = "no input devices in \(directory)" }
        return probe
    }

    /// The report for one device's capabilities (pure: tested without devices).
    public static func report(path: String, capabilities caps: DeviceCapabilities, translator: KeyTranslator) -> DeviceReport {
        let roles = DeviceClassifier.roles(of: caps, boundKeys: translator.boundCodes)
        var axes: [AxisReport] = []
        var touchProtocol: String?
        if let touch = caps.touchProtocol {
            let codes: (UInt16, UInt16)
            switch touch {
            case .multitouchSlots: codes = (EvdevCode.mtPositionX, EvdevCode.mtPositionY); touchProtocol = "multitouch"
            case .singleTouch: codes = (EvdevCode.absX, EvdevCode.absY); touchProtocol = "single-touch"
            }
            for (code, range) in [(codes.0, touch.xAxis), (codes.1, touch.yAxis)] {
                axes.append(AxisReport(axis: EvdevCode.absName(code), minimum: range.minimum, maximum: range.maximum,
                                       resolution: range.resolution))
            }
        }
        let bound = KeyAction.allCases.flatMap { translator.keyMap[$0] }
            .filter { name in EvdevCode.keyCode(named: name).map(caps.keys.contains) ?? false }
        return DeviceReport(path: path, name: caps.name, kind: roles.kind, touchProtocol: touchProtocol, axes: axes,
                            boundKeys: bound, error: nil)
    }

    /// For people: one line per device, axes indented below touchscreens.
    public var text: String {
        var lines = ["input devices (\(directory)):"]
        if let error { lines.append("  \(error)") }
        for device in devices {
            if let error = device.error {
                lines.append("  \(device.path): \(error)")
                continue
            }
            var line = "  \(device.path) '\(device.name)': \(device.kind)"
            if let touchProtocol = device.touchProtocol { line += ", \(touchProtocol)" }
            if !device.boundKeys.isEmpty {
                let shown = device.boundKeys.prefix(6).joined(separator: " ")
                line += ", keys \(shown)" + (device.boundKeys.count > 6 ? " (+\(device.boundKeys.count - 6))" : "")
            }
            lines.append(line)
            for axis in device.axes {
                lines.append("    \(axis.axis) \(axis.minimum)...\(axis.maximum)"
                             + (axis.resolution > 0 ? ", \(axis.resolution)/mm" : ""))
            }
        }
        return lines.joined(separator: "\n")
    }
}
