/// The screens' connectors as kiosk last read them (`VideoOutput.connectorStates`), and what changed: a cable pulled is a
/// hotplug counted and an alert (`display disconnected`); the same cable back is a hotplug
/// counted and a screen to set up again (its mode applied anew, as a returning HDMI or
/// DisplayPort sink may need: DESIGN's "come back by itself").
public struct DisplayConnections: Sendable, Equatable {
    /// Connector (sysfs name) to its last state, for the screens kiosk drives.
    public private(set) var states: [String: ConnectorStatus] = [:]
    /// Changes of state seen since the start (either way; the first reading is not one).
    public private(set) var hotplugs = 0

    public enum Change: Sendable, Equatable {
        case unplugged(String)
        /// Plugged in again after it was seen disconnected.
        case returned(String)
    }

    public init() {}

    /// One reading of every connector (a connector whose file could not be read is left as it
    /// was). Returns what changed since the last reading, in the connectors' order.
    public mutating func update(_ reading: [(connector: String, state: ConnectorStatus?)]) -> [Change] {
        var changes: [Change] = []
        for (connector, state) in reading {
            guard let state else { continue }
            let before = states.updateValue(state, forKey: connector)
            guard let before, before != state else { continue }
            hotplugs += 1
            if state == .disconnected { changes.append(.unplugged(connector)) }
            if state == .connected && before == .disconnected { changes.append(.returned(connector)) }
        }
        return changes
    }

    /// Whether every screen is connected: nil while none reads `connected` or `disconnected`
    /// (headless, or connectors that cannot tell), so the metric is absent rather than wrong.
    public var allConnected: Bool? {
        let known = states.values.filter { $0 != .unknown }
        return known.isEmpty ? nil : known.allSatisfy { $0 == .connected }
    }
}
