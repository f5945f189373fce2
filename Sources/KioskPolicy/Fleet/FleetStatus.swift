/// The retained payload of `kiosk/<name>/status`: what a fleet dashboard shows for a screen.
/// One JSON object, keys in this order (a contract, like the control socket's lines).
public struct FleetStatus: Sendable, Equatable {
    /// kiosk's version (`KioskVersion.text`).
    public var version: String
    /// time_control_status's words (`playing`, `paused`, `waitingToPlayAtSpecifiedRate`).
    public var state: String
    public var item: Int?
    public var title: String?
    /// Seconds into the current item.
    public var time: Double
    public var displayOn: Bool

    public init(version: String, state: String, item: Int?, title: String?, time: Double, displayOn: Bool) {
        self.version = version
        self.state = state
        self.item = item
        self.title = title
        self.time = time
        self.displayOn = displayOn
    }

    /// `{"online":true,"state":"playing","item":1,"title":"Lobby","time":12.5,"display_power":"on","version":"0.1.0"}`
    public var json: String {
        ControlValue.object([
            ("online", .bool(true)),
            ("state", .string(state)),
            ("item", item.map { .integer(Int64($0)) } ?? .null),
            ("title", title.map { .string($0) } ?? .null),
            ("time", .number(ControlMessage.rounded(time))),
            ("display_power", .string(displayOn ? "on" : "off")),
            ("version", .string(version)),
        ]).json
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
