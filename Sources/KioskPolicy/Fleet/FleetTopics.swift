/// The MQTT topics of one kiosk (README, "Fleet control over MQTT"). Everything is under
/// `kiosk/<name>/`; a group's commands under `kiosk/group/<group>/cmd` (one level deeper than
/// a kiosk's own `kiosk/<name>/cmd`, so even a kiosk named `group` cannot be mistaken for one).
public struct FleetTopics: Sendable, Equatable {
    public let name: String
    public let groups: [String]

    public init(name: String, groups: [String]) {
        self.name = name
        self.groups = groups
    }

    /// `kiosk/<name>`, as log lines name the kiosk.
    public var root: String { "kiosk/\(name)" }
    /// Retained JSON: online, state, item, title, time...; the will sets it offline.
    public var status: String { "\(root)/status" }
    /// The control socket's event lines.
    public var event: String { "\(root)/event" }
    /// Proof-of-play lines, when `mqtt.proof_of_play` is on.
    public var plays: String { "\(root)/plays" }
    /// A screenshot (PNG), retained, for Home Assistant's image entity (`mqtt.screen_interval`).
    public var screen: String { "\(root)/screen" }
    /// Commands for this kiosk: the control socket's request lines.
    public var command: String { "\(root)/cmd" }
    /// Replies to the commands (from this kiosk's topic and its groups' alike).
    public var reply: String { "\(root)/reply" }
    /// Every topic kiosk takes commands from: its own, then each group's.
    public var commandTopics: [String] { [command] + groups.map { "kiosk/group/\($0)/cmd" } }

    /// Why `level` cannot be one level of a topic, or nil when it can.
    public static func problem(withLevel level: String) -> String? {
        if level.isEmpty { return "it is empty" }
        if let bad = level.first(where: { "/+#\u{0}".contains($0) }) {
            return bad == "\u{0}" ? "it holds a NUL character" : "it holds '\(bad)', which MQTT reserves"
        }
        if level.utf8.count > 1024 { return "it is longer than 1024 bytes" }
        return nil
    }

    /// The name of a kiosk whose kiosk.conf names none: the host name, made a valid level
    /// (`/`, `+`, `#` become `_`), and `kiosk` for an empty one.
    public static func defaultName(hostName: String) -> String {
        let cleaned = String(hostName.map { "/+#\u{0}".contains($0) ? "_" : $0 })
        return cleaned.isEmpty ? "kiosk" : cleaned
    }
}
