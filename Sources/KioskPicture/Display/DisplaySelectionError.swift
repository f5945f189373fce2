/// Why kiosk could not pick a connector, mode, CRTC or plane. Each message names the thing asked
/// for and lists what there is instead, so a wrong `kiosk.conf` line can be fixed from the log.
public enum DisplaySelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidModeSpec(String)
    case unknownConnector(name: String, available: [String])
    case connectorDisconnected(name: String)
    case noConnectedConnector(connectors: [String])
    case noModes(connector: String)
    case modeNotOffered(requested: String, connector: String, available: [String])
    case noCRTC(connector: String)
    case noPrimaryPlane(crtcIndex: Int)

    public var description: String {
        switch self {
        case .invalidModeSpec(let text):
            return "invalid mode '\(text)': write WIDTHxHEIGHT, WIDTHxHEIGHT@HZ (e.g. 1920x1080@60) or 'preferred'"
        case .unknownConnector(let name, let available):
            return "no connector named '\(name)'; this card has: \(Self.list(available))"
        case .connectorDisconnected(let name):
            return "connector \(name) is disconnected (no screen plugged in, or it is switched off)"
        case .noConnectedConnector(let connectors):
            return "no connected screen; connectors: \(Self.list(connectors))"
        case .noModes(let connector):
            return "connector \(connector) offers no modes (no EDID read from the screen?)"
        case .modeNotOffered(let requested, let connector, let available):
            return "mode \(requested) is not offered by \(connector); it offers: \(Self.list(available))"
        case .noCRTC(let connector):
            return "no free CRTC can drive connector \(connector) (all are busy with other screens)"
        case .noPrimaryPlane(let crtcIndex):
            return "no primary plane that takes XRGB8888 for CRTC #\(crtcIndex)"
        }
    }

    static func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }
}
