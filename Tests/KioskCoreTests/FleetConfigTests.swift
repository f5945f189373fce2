import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf's `mqtt` section, the topics and the status payload of fleet control.
@Suite("Fleet control: config, topics, status")
struct FleetConfigTests {
    private let items = "items: [a.mp4]\n"

    private func parse(_ yaml: String, files: [String] = []) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml + items, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: files))
    }

    @Test func absentSectionIsOff() throws {
        let config = try parse("")
        #expect(!config.mqtt.isEnabled)
        #expect(config.mqtt == MQTTConfig())
    }

    @Test func everyKeyIsRead() throws {
        let config = try parse("""
            mqtt:
              broker: mqtts://broker.example:8884
              name: lobby-1
              group: [wall, floor2]
              username: kiosk
              password_file: secrets/mqtt.pw
              ca_file: /etc/kiosk/ca.pem
              cert_file: tls/client.pem
              key_file: tls/client.key
              keepalive: 60
              qos: 2
              proof_of_play: true

            """, files: ["/srv/kiosk/secrets/mqtt.pw", "/etc/kiosk/ca.pem", "/srv/kiosk/tls/client.pem", "/srv/kiosk/tls/client.key"])
        let mqtt = config.mqtt
        #expect(mqtt.broker == MQTTBroker(host: "broker.example", port: 8884, usesTLS: true))
        #expect(mqtt.name == "lobby-1")
        #expect(mqtt.groups == ["wall", "floor2"])
        #expect(mqtt.username == "kiosk")
        #expect(mqtt.password == nil)
        #expect(mqtt.passwordFile == "/srv/kiosk/secrets/mqtt.pw")
        #expect(mqtt.caFile == "/etc/kiosk/ca.pem")
        #expect(mqtt.certFile == "/srv/kiosk/tls/client.pem")
        #expect(mqtt.keyFile == "/srv/kiosk/tls/client.key")
        #expect(mqtt.keepalive == 60)
        #expect(mqtt.qos == 2)
        #expect(mqtt.proofOfPlay)
    }

    /// `kiosk check` passed `mqtt.proof_of_play` alone, and the plays topic stayed silent.
    @Test func proofOfPlayWithoutTheLogIsAWarning() throws {
        let alone = try parse("mqtt: {broker: mqtt://10.0.0.5, proof_of_play: true}\n")
        #expect(alone.mqtt.proofOfPlay, "still loaded as written")
        #expect(alone.scheduleWarnings.map(\.description) == [
            "kiosk.conf:1:48: warning: 'proof_of_play' in mqtt is on but 'logging.proof_of_play' is not set, so no play is recorded "
                + "to publish; expected logging: {proof_of_play: /var/lib/kiosk/plays.jsonl} as well",
        ])
        let logged = try parse("mqtt: {broker: mqtt://10.0.0.5, proof_of_play: true}\nlogging: {proof_of_play: plays.jsonl}\n")
        #expect(logged.scheduleWarnings.isEmpty)
        #expect(try parse("mqtt: {broker: mqtt://10.0.0.5, proof_of_play: false}\n").scheduleWarnings.isEmpty)
    }

    @Test func oneGroupMayBeWrittenWithoutAList() throws {
        let config = try parse("mqtt: {broker: mqtt://10.0.0.5, group: wall, username: k, password: s}\n")
        #expect(config.mqtt.groups == ["wall"])
        #expect(config.mqtt.broker == MQTTBroker(host: "10.0.0.5", port: 1883, usesTLS: false))
        #expect(config.mqtt.password == "s")
        #expect(config.mqtt.name == nil)
        #expect(config.mqtt.keepalive == 30 && config.mqtt.qos == 1 && !config.mqtt.proofOfPlay)
    }

    @Test(arguments: [
        ("mqtt://host", "mqtt://host:1883"), ("mqtts://host", "mqtts://host:8883"), ("MQTT://Host:1", "mqtt://Host:1"),
        ("mqtt://[::1]:1884", "mqtt://[::1]:1884"), ("mqtt://[fe80::1]", "mqtt://[fe80::1]:1883"), ("mqtt://host:1883/", "mqtt://host:1883"),
    ])
    func brokerURLs(text: String, shown: String) throws {
        let broker = try MQTTBroker.parse(text).get()
        #expect(broker.description == shown)
    }

    @Test(arguments: [
        ("tcp://host:1883", "the scheme is not mqtt:// or mqtts://"),
        ("mqtt://", "the host is missing"),
        ("mqtt://:1883", "the host is missing"),
        ("mqtt://host:0", "the port '0' is not a number from 1 to 65535"),
        ("mqtt://host:99999", "the port '99999' is not a number from 1 to 65535"),
        ("mqtt://host:port", "the port 'port' is not a number from 1 to 65535"),
        ("mqtt://user:pw@host", "credentials go in username and password, not the URL"),
        ("mqtt://host/kiosk", "a broker URL has no path"),
        ("mqtt://[::1", "an IPv6 address lacks its ']'"),
    ])
    func badBrokerURLs(text: String, reason: String) {
        #expect(throws: MQTTBrokerError(reason)) { try MQTTBroker.parse(text).get() }
    }

    @Test(arguments: [
        ("mqtt:\n  name: a\n", 2, 3, "the mqtt section has no 'broker'; expected a broker URL like mqtt://host:1883"),
        ("mqtt:\n  broker: http://x\n", 2, 11, "'broker' in mqtt is 'http://x': the scheme is not mqtt:// or mqtts://; expected a broker URL"),
        ("mqtt:\n  broker: mqtt://x\n  name: a/b\n", 3, 9, "'name' in mqtt is 'a/b': it holds '/', which MQTT reserves"),
        ("mqtt:\n  broker: mqtt://x\n  group: [wall, 'fl#2']\n", 3, 10, "'group' in mqtt is 'fl#2': it holds '#', which MQTT reserves"),
        ("mqtt:\n  broker: mqtt://x\n  password: s\n", 3, 3, "mqtt has a password but no 'username'; expected both"),
        ("mqtt:\n  broker: mqtt://x\n  username: u\n  password: s\n  password_file: /srv/kiosk/pw\n", 5, 3,
         "mqtt has both 'password' and 'password_file'; expected one of them"),
        ("mqtt:\n  broker: mqtt://x\n  username: u\n  password_file: pw\n", 4, 18, "password file '/srv/kiosk/pw' does not exist"),
        ("mqtt:\n  broker: mqtts://x\n  ca_file: ca.pem\n", 3, 12, "ca_file '/srv/kiosk/ca.pem' does not exist; expected the path of a CA certificate (PEM)"),
        ("mqtt:\n  broker: mqtt://x\n  keepalive: 2\n", 3, 14, "'keepalive' in mqtt is 2; expected a whole number from 5 to 3600 seconds"),
        ("mqtt:\n  broker: mqtt://x\n  qos: 3\n", 3, 8, "'qos' in mqtt is 3; expected a whole number from 0 to 2"),
        ("mqtt:\n  broker: mqtt://x\n  proof_of_play: often\n", 3, 18, "expected true or false"),
        ("mqtt:\n  brokr: mqtt://x\n", 2, 3, "unknown key 'brokr' in mqtt; expected one of: broker, name, group"),
    ])
    func badValuesAreOneDiagnosticAtTheirPlace(yaml: String, line: Int, column: Int, fragment: String) {
        let diagnostics = parseDiagnostics(yaml + items)
        #expect(diagnostics.contains { $0.line == line && $0.column == column && $0.message.contains(fragment) },
                "\(diagnostics)")
    }

    @Test func tlsFilesNeedAnMqttsBrokerAndCertificateAndKeyGoTogether() {
        let disk = FakeFileSystem(files: ["/srv/kiosk/ca.pem", "/srv/kiosk/c.pem"])
        func diagnostics(_ yaml: String) -> [String] {
            do {
                _ = try ConfigLoader.parse(text: yaml + items, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: disk)
                return []
            } catch {
                return error.diagnostics.map(\.message)
            }
        }
        #expect(diagnostics("mqtt: {broker: 'mqtt://x', ca_file: ca.pem}\n")
                == ["TLS files are set but the broker is mqtt://x:1883 (no TLS); expected an mqtts:// broker"])
        #expect(diagnostics("mqtt: {broker: 'mqtts://x', cert_file: c.pem}\n")
                == ["mqtt has only one of 'cert_file' and 'key_file'; expected both (a client certificate and its key) or neither"])
        #expect(diagnostics("mqtt: {broker: 'mqtts://x', ca_file: ca.pem}\n").isEmpty)
    }

    /// The annotated kiosk.conf shows the section commented out (it is off by default); taken in,
    /// it must read as it says (`password` is shown with `password_file` as its alternative).
    @Test func theExamplesCommentedSectionParses() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# mqtt:"))
        let config = try parse(section + "\n", files: ["/etc/kiosk/mqtt-ca.pem", "/etc/kiosk/client.pem", "/etc/kiosk/client.key"])
        #expect(config.mqtt.broker == MQTTBroker(host: "broker.example", port: 8883, usesTLS: true))
        #expect(config.mqtt.username == "kiosk" && config.mqtt.password == "secret")
        #expect(config.mqtt.caFile == "/etc/kiosk/mqtt-ca.pem" && config.mqtt.keyFile == "/etc/kiosk/client.key")
        #expect(config.mqtt.name == "lobby-1" && config.mqtt.groups == ["wall-a"])
        #expect(config.mqtt.keepalive == MQTTConfig().keepalive && config.mqtt.qos == MQTTConfig().qos)
        #expect(config.mqtt.proofOfPlay == MQTTConfig().proofOfPlay)
        #expect(config.mqtt.discovery == nil, "the example shows discovery off")
        #expect(config.mqtt.screenInterval == 300)
    }

    @Test func theScreenImageIsEveryFiveMinutesBySecondsOrOff() throws {
        #expect(try parse("mqtt: {broker: 'mqtt://a'}\n").mqtt.screenInterval == 300)
        #expect(try parse("mqtt: {broker: 'mqtt://a', screen_interval: 60}\n").mqtt.screenInterval == 60)
        #expect(try parse("mqtt: {broker: 'mqtt://a', screen_interval: off}\n").mqtt.screenInterval == nil)
        let diagnostics = parseDiagnostics("mqtt: {broker: 'mqtt://a', screen_interval: 5}\n" + items)
        #expect(diagnostics.map(\.message) == ["'screen_interval' in mqtt is 5; expected a whole number from 10 to 86400 seconds (or off)"])
    }

    @Test func discoveryIsOffHomeAssistantOrItsPrefix() throws {
        #expect(try parse("mqtt: {broker: 'mqtt://a'}\n").mqtt.discovery == nil)
        #expect(try parse("mqtt: {broker: 'mqtt://a', discovery: off}\n").mqtt.discovery == nil)
        #expect(try parse("mqtt: {broker: 'mqtt://a', discovery: homeassistant}\n").mqtt.discovery == "homeassistant")
        #expect(try parse("mqtt: {broker: 'mqtt://a', discovery: ha-test}\n").mqtt.discovery == "ha-test")
        let diagnostics = parseDiagnostics("mqtt: {broker: 'mqtt://a', discovery: 'home/assistant'}\n" + items)
        #expect(diagnostics.map(\.message) == ["'discovery' in mqtt is 'home/assistant': it holds '/', which MQTT reserves; expected a topic level without / + #"])
    }

    @Test func aChangedSectionWaitsForARestart() throws {
        let old = try parse("mqtt: {broker: 'mqtt://a'}\n")
        let new = try parse("mqtt: {broker: 'mqtt://b'}\n")
        let changes = ConfigChanges(from: old, to: new)
        #expect(changes.parts == [.mqtt])
        #expect(changes.waitingForRestart == [.mqtt])
        #expect(new.appliedLive(to: old).mqtt == old.mqtt)
    }

    @Test func topicsAreUnderTheKiosksNameAndItsGroups() {
        let topics = FleetTopics(name: "lobby-1", groups: ["wall", "floor2"])
        #expect(topics.root == "kiosk/lobby-1")
        #expect(topics.status == "kiosk/lobby-1/status")
        #expect(topics.event == "kiosk/lobby-1/event")
        #expect(topics.plays == "kiosk/lobby-1/plays")
        #expect(topics.reply == "kiosk/lobby-1/reply")
        #expect(topics.commandTopics == ["kiosk/lobby-1/cmd", "kiosk/group/wall/cmd", "kiosk/group/floor2/cmd"])
        #expect(FleetTopics(name: "k", groups: []).commandTopics == ["kiosk/k/cmd"])
    }

    @Test func theHostNameIsMadeAValidLevel() {
        #expect(FleetTopics.defaultName(hostName: "signage-07.example.com") == "signage-07.example.com")
        #expect(FleetTopics.defaultName(hostName: "a/b+c#d") == "a_b_c_d")
        #expect(FleetTopics.defaultName(hostName: "") == "kiosk")
        #expect(FleetTopics.problem(withLevel: "") == "it is empty")
        #expect(FleetTopics.problem(withLevel: "ok-name_1") == nil)
        #expect(FleetTopics.problem(withLevel: "a+b") == "it holds '+', which MQTT reserves")
    }

    @Test func statusAndOfflinePayloadsAreOneJSONLineInAFixedOrder() {
        let status = FleetStatus(version: "0.1.0", state: "playing", item: 2, title: "Lobby \"A\"", time: 12.3456789, displayOn: true,
                                 next: "Menu")
        #expect(status.json == #"{"online":true,"state":"playing","item":2,"title":"Lobby \"A\"","next":"Menu","time":12.345679,"display_power":"on","version":"0.1.0"}"#)
        let idle = FleetStatus(version: "0.1.0", state: "paused", item: nil, title: nil, time: 0, displayOn: false)
        #expect(idle.json == #"{"online":true,"state":"paused","item":null,"title":null,"next":null,"time":0.0,"display_power":"off","version":"0.1.0"}"#)
        let warm = FleetStatus(version: "0.1.0", state: "playing", item: 0, title: nil, time: 1, displayOn: true,
                               alerts: [], temperature: 48.3125)
        #expect(warm.json.hasSuffix(#""alerts":[],"temperature":48.3}"#), "the hottest zone, to a tenth: \(warm.json)")
        #expect(FleetStatus.offline(version: "0.1.0") == #"{"online":false,"state":"offline","version":"0.1.0"}"#)
    }
}
