/// Connectors, encoders and CRTCs as plain data read from a card, and the choice of which to
/// drive. Kept free of libdrm so the rules are unit tested without a card.

public enum ConnectorStatus: String, Sendable, Hashable, Codable {
    case connected, disconnected, unknown
}

/// DRM_MODE_CONNECTOR_* and the names the kernel gives them (drm_connector_enum_list), so a
/// connector is called `HDMI-A-1` or `Virtual-1` exactly as in /sys/class/drm and the kernel log.
public enum ConnectorType {
    static let kernelNames: [String] = [
        "Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component",
        "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB",
    ]

    public static func name(ofType type: UInt32) -> String {
        Int(type) < kernelNames.count ? kernelNames[Int(type)] : "Unknown\(type)"
    }

    /// `HDMI-A-1`: the type's name, a dash, the per-type index the kernel assigned.
    public static func connectorName(type: UInt32, typeID: UInt32) -> String {
        "\(name(ofType: type))-\(typeID)"
    }
}

public struct DisplayConnectorInfo: Sendable, Hashable, Codable {
    public var id: UInt32
    public var name: String
    public var status: ConnectorStatus
    public var modes: [DisplayMode]
    public var encoderIDs: [UInt32]
    /// The encoder driving it now; 0 when it is off.
    public var currentEncoderID: UInt32
    /// Physical size in millimeters from the EDID; 0 when unknown.
    public var widthMillimeters: UInt32
    public var heightMillimeters: UInt32

    public init(id: UInt32, name: String, status: ConnectorStatus, modes: [DisplayMode], encoderIDs: [UInt32],
                currentEncoderID: UInt32 = 0, widthMillimeters: UInt32 = 0, heightMillimeters: UInt32 = 0) {
        self.id = id; self.name = name; self.status = status; self.modes = modes; self.encoderIDs = encoderIDs
        self.currentEncoderID = currentEncoderID
        self.widthMillimeters = widthMillimeters; self.heightMillimeters = heightMillimeters
    }

    /// "HDMI-A-1 (connected, 12 modes)": the line error messages list.
    public var summary: String { "\(name) (\(status.rawValue), \(modes.count) mode\(modes.count == 1 ? "" : "s"))" }
}

public struct DisplayEncoderInfo: Sendable, Hashable, Codable {
    public var id: UInt32
    /// The CRTC it is attached to now; 0 when none.
    public var currentCRTCID: UInt32
    /// Bit i set: the CRTC at index i of the card's CRTC list can drive this encoder.
    public var possibleCRTCs: UInt32

    public init(id: UInt32, currentCRTCID: UInt32, possibleCRTCs: UInt32) {
        self.id = id; self.currentCRTCID = currentCRTCID; self.possibleCRTCs = possibleCRTCs
    }
}

public struct DisplayCRTCInfo: Sendable, Hashable, Codable {
    public var id: UInt32
    /// Position in the card's CRTC list: the bit that possible_crtcs masks use.
    public var index: Int
    /// The framebuffer scanned out now (0: none) and the mode it runs (nil: off).
    public var currentFramebufferID: UInt32
    public var currentMode: DisplayMode?

    public init(id: UInt32, index: Int, currentFramebufferID: UInt32 = 0, currentMode: DisplayMode? = nil) {
        self.id = id; self.index = index; self.currentFramebufferID = currentFramebufferID; self.currentMode = currentMode
    }
}

public enum ConnectorSelection {
    /// The connector named `name` (case-insensitive), or, for nil, the first connected one with
    /// modes, else the first whose status the driver does not know but that has modes.
    public static func choose(named name: String?,
                              from connectors: [DisplayConnectorInfo]) throws(DisplaySelectionError) -> DisplayConnectorInfo {
        if let name {
            guard let match = connectors.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .unknownConnector(name: name, available: connectors.map(\.summary))
            }
            if match.status == .disconnected && match.modes.isEmpty { throw .connectorDisconnected(name: match.name) }
            return match
        }
        if let connected = connectors.first(where: { $0.status == .connected && !$0.modes.isEmpty }) { return connected }
        if let maybe = connectors.first(where: { $0.status == .unknown && !$0.modes.isEmpty }) { return maybe }
        throw .noConnectedConnector(connectors: connectors.map(\.summary))
    }
}

public enum CRTCSelection {
    /// The CRTC for `connector`: the one already driving it (no needless modeset of another
    /// pipe, and restore puts back exactly what was there), else the first CRTC one of its
    /// encoders can use that is not driving another connector.
    public static func choose(for connector: DisplayConnectorInfo, connectors: [DisplayConnectorInfo],
                              encoders: [DisplayEncoderInfo],
                              crtcs: [DisplayCRTCInfo], taken: Set<UInt32> = []) throws(DisplaySelectionError) -> DisplayCRTCInfo {
        let encoderByID = Dictionary(encoders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let current = encoderByID[connector.currentEncoderID], current.currentCRTCID != 0,
           !taken.contains(current.currentCRTCID),
           let crtc = crtcs.first(where: { $0.id == current.currentCRTCID }) {
            return crtc
        }
        // `taken`: CRTCs this kiosk drives already for its other screens on the card.
        let busy = taken.union(connectors.filter { $0.id != connector.id }
            .compactMap { encoderByID[$0.currentEncoderID]?.currentCRTCID }.filter { $0 != 0 })
        for encoderID in connector.encoderIDs {
            guard let encoder = encoderByID[encoderID] else { continue }
            if let crtc = crtcs.first(where: { $0.index < 32 && encoder.possibleCRTCs & (1 << UInt32($0.index)) != 0
                                                && !busy.contains($0.id) }) {
                return crtc
            }
        }
        throw .noCRTC(connector: connector.name)
    }
}
