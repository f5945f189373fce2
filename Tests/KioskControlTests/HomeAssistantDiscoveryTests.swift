import Foundation
import KioskCore
import Logging
import Synchronization
import Testing
@testable import KioskControl

/// Home Assistant's MQTT discovery (`mqtt.discovery`): the configs against the fields Home
/// Assistant's MQTT integration documents for each platform, their commands against kiosk's own
/// command table, and the bridge announcing them on each connection and on Home Assistant's birth.
@Suite struct HomeAssistantDiscoveryTests {
    static let topics = FleetTopics(name: "lobby 1", groups: [])
    static let discovery = HomeAssistantDiscovery(prefix: "homeassistant", topics: topics, version: "0.1.0",
                                                  triggers: ["welcome", "fire drill"])

    static func json(_ payload: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
    }

    /// What Home Assistant's MQTT platforms require or use for each (its documentation's
    /// "Configuration variables"): every entity a unique_id, a device and availability; a
    /// command topic and its payloads for what can be commanded; a state topic for what shows.
    static let required: [String: [String]] = [
        "sensor": ["state_topic", "value_template"],
        "binary_sensor": ["state_topic", "value_template", "device_class"],
        "switch": ["command_topic", "state_topic", "payload_on", "payload_off", "state_on", "state_off", "value_template"],
        "number": ["command_topic", "command_template", "state_topic", "min", "max", "step"],
        "button": ["command_topic", "payload_press"],
        "image": ["image_topic", "content_type"],
    ]

    @Test func everyEntityIsOneRetainableConfigWithWhatItsPlatformNeeds() throws {
        let messages = Self.discovery.messages
        #expect(messages.count == 12,
                "state, title, alert, temperature, display power, volume, mute, toggle, next, previous, two triggers")
        var uniqueIDs: Set<String> = []
        for message in messages {
            let levels = message.topic.split(separator: "/").map(String.init)
            #expect(levels.count == 5 && levels[0] == "homeassistant" && levels[2] == "kiosk_lobby_1" && levels[4] == "config",
                    "\(message.topic)")
            let fields = try Self.json(message.payload)
            let component = levels[1]
            for key in ["name", "unique_id", "availability_topic", "availability_template"] + (Self.required[component] ?? ["?"]) {
                #expect(fields[key] != nil, "\(message.topic) lacks \(key)")
            }
            let id = try #require(fields["unique_id"] as? String)
            #expect(uniqueIDs.insert(id).inserted, "unique ids are unique")
            #expect(id.range(of: "^[A-Za-z0-9_-]+$", options: .regularExpression) != nil, "\(id)")
            #expect(id.hasSuffix("_" + levels[3]))
            let device = try #require(fields["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["kiosk_lobby_1"])
            #expect(device["name"] as? String == "lobby 1")
            #expect(device["sw_version"] as? String == "0.1.0")
            #expect(fields["availability_topic"] as? String == "kiosk/lobby 1/status")
            if let state = fields["state_topic"] { #expect(state as? String == "kiosk/lobby 1/status") }
            if let command = fields["command_topic"] { #expect(command as? String == "kiosk/lobby 1/cmd") }
        }
        #expect(uniqueIDs.contains("kiosk_lobby_1_trigger_fire_drill"))
        let temperature = try Self.json(try #require(messages.first { $0.topic.hasSuffix("/temperature/config") }).payload)
        #expect(temperature["device_class"] as? String == "temperature" && temperature["unit_of_measurement"] as? String == "°C")
        #expect(Self.discovery.birthTopic == "homeassistant/status")
    }

    /// What an entity sends is a line of the control socket that kiosk's own table reads: Home
    /// Assistant reaches the commands every other source reaches.
    @Test func everyPayloadAnEntitySendsIsACommandOfTheTable() throws {
        var lines: [String] = []
        for message in Self.discovery.messages {
            let fields = try Self.json(message.payload)
            for key in ["payload_on", "payload_off", "payload_press"] {
                if let line = fields[key] as? String { lines.append(line) }
            }
            if let template = fields["command_template"] as? String {
                // Home Assistant renders `{{ value | int }}` with the number the user set.
                lines.append(template.replacingOccurrences(of: "{{ value | int }}", with: "35"))
            }
        }
        #expect(lines.count == 10)
        let parsed = try lines.map { line in try ControlRequestParser.parse(line).command }
        #expect(parsed.contains(.request(.setVolume(35))))
        #expect(parsed.contains(.request(.setMuted(true))))
        #expect(parsed.contains(.request(.setMuted(false))))
        #expect(parsed.contains(.request(.nextItem)))
        #expect(parsed.contains(.request(.previousItem)))
        #expect(parsed.contains(.request(.togglePlayPause)))
    }

    @Test func triggersWhoseIdsWouldCollideGetDistinctOnes() throws {
        let discovery = HomeAssistantDiscovery(prefix: "ha", topics: Self.topics, version: "0.1.0",
                                               triggers: ["fire drill", "fire_drill", "fire-drill"])
        let ids = try discovery.messages.map { try #require(try Self.json($0.payload)["unique_id"] as? String) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.filter { $0.contains("trigger_fire") } == ["kiosk_lobby_1_trigger_fire_drill", "kiosk_lobby_1_trigger_fire_drill_2",
                                                               "kiosk_lobby_1_trigger_fire-drill"])
        let first = try Self.json(discovery.messages[0].payload)
        #expect(first["default_entity_id"] as? String == "sensor.kiosk_lobby_1_state")
    }

    @Test func theBridgeAnnouncesOnConnectAndWhenHomeAssistantStarts() {
        let link = RecordingLink(), player = FakePlayer()
        let bridge = FleetBridge(topics: Self.topics, link: link, statusInterval: 3600, discoveryPrefix: "homeassistant",
                                 logger: Logger(label: "test"))
        bridge.start(Services(player: player, baseDirectory: "/media"))
        defer { bridge.stop() }
        #expect(bridge.subscriptions == ["kiosk/lobby 1/cmd", "homeassistant/status"])
        bridge.connectionOpened()
        let configs = { (link: RecordingLink) in link.all.filter { $0.topic.hasPrefix("homeassistant/") } }
        #expect(link.wait { configs($0).count == 10 && !$0.on(Self.topics.status).isEmpty })
        #expect(configs(link).allSatisfy { $0.retain })
        // The configs before the status, so that the entities exist when their state comes.
        let firstStatus = link.all.firstIndex { $0.topic == Self.topics.status }!
        #expect(link.all.lastIndex { $0.topic.hasPrefix("homeassistant/") }! < firstStatus)
        let status = link.on(Self.topics.status).last!.payload
        #expect(status.contains(#""volume":"#) && status.contains(#""muted":"#), "\(status)")
        #expect(!status.contains("alerts"), "no health in these services: the status leaves alerts out")

        bridge.received(message: "offline", on: "homeassistant/status")
        bridge.received(message: "online", on: "homeassistant/status")
        #expect(link.wait { configs($0).count == 20 })
        // Neither birth message was taken for a command.
        #expect(link.on(Self.topics.reply).isEmpty)
        #expect(player.requests.isEmpty)
    }

    @Test func withoutDiscoveryNothingIsAnnouncedAndTheBirthTopicIsNotSubscribed() {
        let link = RecordingLink(), player = FakePlayer()
        let bridge = FleetBridge(topics: Self.topics, link: link, statusInterval: 3600, logger: Logger(label: "test"))
        bridge.start(Services(player: player, baseDirectory: "/media"))
        defer { bridge.stop() }
        #expect(bridge.subscriptions == ["kiosk/lobby 1/cmd"])
        bridge.connectionOpened()
        #expect(link.wait { !$0.on(Self.topics.status).isEmpty })
        #expect(!link.all.contains { $0.topic.hasPrefix("homeassistant/") })
    }

    /// With screenshots published (`mqtt.screen_interval`), an image entity shows them; without, none.
    @Test func anImageEntityShowsTheScreenOnlyWhenItIsPublished() throws {
        #expect(!Self.discovery.messages.contains { $0.topic.contains("/image/") })
        let withScreen = HomeAssistantDiscovery(prefix: "homeassistant", topics: Self.topics, version: "0.1.0", triggers: [],
                                                screen: true)
        let image = try #require(withScreen.messages.first { $0.topic == "homeassistant/image/kiosk_lobby_1/screen/config" })
        let fields = try Self.json(image.payload)
        for key in ["name", "unique_id", "availability_topic"] + Self.required["image"]! { #expect(fields[key] != nil, "\(key)") }
        #expect(fields["image_topic"] as? String == "kiosk/lobby 1/screen")
        #expect(fields["content_type"] as? String == "image/png")
        #expect(fields["state_topic"] == nil, "an image has no state topic")
    }
}
