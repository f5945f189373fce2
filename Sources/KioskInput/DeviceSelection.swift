import KioskCore

/// kiosk.conf's `input.devices` applied to one device: `auto` takes every touchscreen and
/// every keyboard with a bound key; a list takes the devices it names, by node path (symlinks
/// such as /dev/input/by-id/... resolved by the caller) or by the name the driver gives.
public struct DeviceSelection: Sendable, Equatable {
    public let devices: InputConfig.Devices

    public init(_ devices: InputConfig.Devices) { self.devices = devices }

    /// Whether the device is named in the list; always false for `auto`.
    /// - Parameters:
    ///   - paths: the node's path and any other paths that lead to it (resolved symlinks).
    public func lists(paths: [String], name: String) -> Bool {
        guard case .listed(let entries) = devices else { return false }
        return entries.contains { entry in paths.contains(entry) || entry == name }
    }

    /// The roles to read the device in, or none.
    public func roles(paths: [String], capabilities: DeviceCapabilities, boundKeys: Set<UInt16>) -> DeviceRoles {
        switch devices {
        case .auto:
            return DeviceClassifier.roles(of: capabilities, boundKeys: boundKeys)
        case .listed:
            guard lists(paths: paths, name: capabilities.name) else { return [] }
            return DeviceClassifier.roles(of: capabilities, boundKeys: boundKeys, listed: true)
        }
    }
}

/// /dev/input/eventN names in the kernel's order (event2 before event10).
enum EventNodeNames {
    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy(\.isASCII) && Int(name.dropFirst(5)) != nil
    }

    static func sorted(_ names: [String]) -> [String] {
        names.filter(isEventNode).sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
    }
}
