/// `mqtt`: fleet control over an MQTT broker (README, "Fleet control over MQTT"). Absent, or
/// without `broker`: kiosk connects to nothing.
public struct MQTTConfig: Sendable, Equatable {
    /// `broker`: `mqtt://host[:port]` (1883 by default) or `mqtts://host[:port]` (TLS, 8883).
    public var broker: MQTTBroker?
    /// `name`: this kiosk's topic level, `kiosk/<name>/...`; nil: the host name.
    public var name: String?
    /// `group`: one name or a list; each adds `kiosk/group/<group>/cmd` (a whole wall).
    public var groups: [String] = []
    /// `username`; `password` or `password_file` (a file whose first line is the password,
    /// read at start so kiosk.conf can stay world-readable while the secret is not).
    public var username: String?
    public var password: String?
    public var passwordFile: String?
    /// `ca_file`: the CA bundle that signs the broker's certificate (mqtts only; absent: the
    /// system's CAs in /etc/ssl/certs). `cert_file` + `key_file`: a client certificate.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// `keepalive`: seconds between pings when idle; the broker publishes the will after 1.5 x
    /// this without a word from kiosk (a power cut, a dead link).
    public var keepalive = 30
    /// `qos`: 0, 1 or 2, for everything kiosk publishes and subscribes to.
    public var qos = 1
    /// `proof_of_play`: also publish each proof-of-play line on `kiosk/<name>/plays`
    /// (needs `logging.proof_of_play`, which makes the lines).
    public var proofOfPlay = false
    /// `discovery`: `homeassistant` (or the discovery prefix Home Assistant is set to): kiosk
    /// announces itself as a device for Home Assistant's MQTT discovery; nil (`off`): it does not.
    public var discovery: String?
    /// `screen_interval`: with discovery, seconds between the screenshots published for Home
    /// Assistant's image entity (`kiosk/<name>/screen`, a PNG); nil (`off`): no image.
    public var screenInterval: Int? = 300

    public init() {}

    /// Whether kiosk connects at all.
    public var isEnabled: Bool { broker != nil }
}

/// Where the broker is, from `mqtt://host:port` or `mqtts://host:port`.
public struct MQTTBroker: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// As log lines name it: `mqtts://broker.example:8883`.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }

    /// Reads a broker URL; the error says what is wrong with it.
    public static func parse(_ text: String) -> Result<MQTTBroker, MQTTBrokerError> {
        let schemes = [("mqtt://", false, 1883), ("mqtts://", true, 8883)]
        guard let (prefix, tls, defaultPort) = schemes.first(where: { text.lowercased().hasPrefix($0.0) }) else {
            return .failure(MQTTBrokerError("the scheme is not mqtt:// or mqtts://"))
        }
        var rest = Substring(text.dropFirst(prefix.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        // Credentials belong in username/password (a URL is logged; they must not be).
        if rest.contains("@") { return .failure(MQTTBrokerError("credentials go in username and password, not the URL")) }
        guard !rest.contains("/"), !rest.contains("?") else { return .failure(MQTTBrokerError("a broker URL has no path")) }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            // [IPv6]:port
            guard let close = rest.firstIndex(of: "]") else { return .failure(MQTTBrokerError("an IPv6 address lacks its ']'")) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(MQTTBrokerError("expected ':port' after ']'")) }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return .failure(MQTTBrokerError("the host is missing")) }
        var port = defaultPort
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                return .failure(MQTTBrokerError("the port '\(portText)' is not a number from 1 to 65535"))
            }
            port = number
        }
        return .success(MQTTBroker(host: String(host), port: port, usesTLS: tls))
    }
}

public struct MQTTBrokerError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
