/// The retained payload of `kiosk/<name>/status`: what a fleet dashboard shows for a screen.
/// One JSON object, keys in this order (a contract, like the control socket's lines).
public struct FleetStatus: Sendable, Equatable {
    /// kiosk's version (`KioskVersion.text`).
    public var version: String
    /// time_control_status's words (`playing`, `paused`, `waitingToPlayAtSpecifiedRate`).
    public var state: String
    public var item: Int?
    public var title: String?
    /// The title of what plays after it as things stand (a switch or insert waiting included);
    /// nil: nothing follows, or not known.
    public var next: String?
    /// Seconds into the current item.
    public var time: Double
    public var displayOn: Bool
    /// The player's volume (0-100) and mute, for dashboards and Home Assistant's entities;
    /// nil: left out.
    public var volume: Int?
    public var muted: Bool?
    /// What is wrong (`HealthSnapshot.alerts`), empty when nothing is; nil: not known (left out).
    public var alerts: [String]?
    /// The box's hottest thermal zone in °C (Home Assistant's temperature sensor); nil: none (left out).
    public var temperature: Double?

    public init(version: String, state: String, item: Int?, title: String?, time: Double, displayOn: Bool,
                volume: Int? = nil, muted: Bool? = nil, alerts: [String]? = nil, temperature: Double? = nil,
                next: String? = nil) {
        self.version = version
        self.state = state
        self.item = item
        self.title = title
        self.next = next
        self.time = time
        self.displayOn = displayOn
        self.volume = volume
        self.muted = muted
        self.alerts = alerts
        self.temperature = temperature
    }

    /// `{"online":true,"state":"playing","item":1,"title":"Lobby","next":"Menu","time":12.5,"display_power":"on","version":"0.1.0","volume":80,"muted":false,"alerts":[],"temperature":48.3}`
    public var json: String {
        var members: [(String, ControlValue)] = [
            ("online", .bool(true)),
            ("state", .string(state)),
            ("item", item.map { .integer(Int64($0)) } ?? .null),
            ("title", title.map { .string($0) } ?? .null),
            ("next", next.map { .string($0) } ?? .null),
            ("time", .number(ControlMessage.rounded(time))),
            ("display_power", .string(displayOn ? "on" : "off")),
            ("version", .string(version)),
        ]
        if let volume { members.append(("volume", .integer(Int64(volume)))) }
        if let muted { members.append(("muted", .bool(muted))) }
        if let alerts { members.append(("alerts", .array(alerts.map { .string($0) }))) }
        if let temperature { members.append(("temperature", .number((temperature * 10).rounded() / 10))) }
        return ControlValue.object(members).json
    }

    /// The last will, and what a clean stop publishes: retained, so a dashboard that subscribes
    /// later still sees the screen is gone.
    public static func offline(version: String) -> String {
        ControlValue.object([("online", .bool(false)), ("state", .string("offline")), ("version", .string(version))]).json
    }
}

/// kiosk's version, as `deploy/package` numbers its .deb (`0.1.0~git<time>.<hash>` starts with it).
public enum KioskVersion {
    public static let text = "0.1.0"
}
