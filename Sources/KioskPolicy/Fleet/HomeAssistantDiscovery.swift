/// Home Assistant's MQTT discovery for one kiosk (`mqtt.discovery`): one device with its
/// entities, each a retained config message under `<prefix>/<component>/<node>/<object>/config`.
/// The entities read the kiosk's retained status (`kiosk/<name>/status`, its JSON) and send the
/// control socket's command lines to `kiosk/<name>/cmd`, so Home Assistant speaks the command
/// table like every other source: no topic or command exists for it alone.
public struct HomeAssistantDiscovery: Sendable, Equatable {
    /// Home Assistant's `discovery_prefix` (its default `homeassistant`).
    public let prefix: String
    public let topics: FleetTopics
    public let version: String
    /// kiosk.conf's trigger names: a button each.
    public let triggers: [String]
    /// Whether kiosk publishes screenshots (`mqtt.screen_interval`): an image entity shows them.
    public let screen: Bool

    public init(prefix: String, topics: FleetTopics, version: String, triggers: [String], screen: Bool = false) {
        self.prefix = prefix
        self.topics = topics
        self.version = version
        self.triggers = triggers
        self.screen = screen
    }

    /// Home Assistant publishes `online` here when it starts: the configs are sent again.
    public var birthTopic: String { "\(prefix)/status" }

    /// `kiosk_<name>`, with what Home Assistant's ids do not allow made `_`.
    public var nodeID: String { "kiosk_" + Self.id(topics.name) }

    public struct Message: Sendable, Equatable {
        public let topic: String
        public let payload: String
    }

    /// Every entity's config, retained by the caller.
    public var messages: [Message] {
        var entities: [(component: String, object: String, fields: [(String, ControlValue)])] = [
            ("sensor", "state", [("name", .string("State")), ("value_template", .string("{{ value_json.state }}")),
                                 ("icon", .string("mdi:play-pause"))]),
            ("sensor", "title", [("name", .string("Title")), ("value_template", .string("{{ value_json.title or '' }}")),
                                 ("icon", .string("mdi:filmstrip"))]),
            // On while the status lists alerts (a frozen picture, a failing display, under-voltage,
            // heat), which it carries as the entity's attributes.
            ("binary_sensor", "alert", [
                ("name", .string("Alert")), ("device_class", .string("problem")),
                ("value_template", .string("{{ 'ON' if value_json.alerts else 'OFF' }}")),
                ("json_attributes_topic", .string(topics.status)),
                ("json_attributes_template", .string("{{ {'alerts': value_json.alerts | default([])} | tojson }}"))]),
            // The box's hottest thermal zone; unknown on a box without one (the status leaves it out).
            ("sensor", "temperature", [
                ("name", .string("Temperature")), ("device_class", .string("temperature")),
                ("unit_of_measurement", .string("°C")), ("state_class", .string("measurement")),
                ("value_template", .string("{{ value_json.temperature if value_json.temperature is defined else none }}"))]),
            ("switch", "display_power", [
                ("name", .string("Display power")), ("value_template", .string("{{ value_json.display_power }}")),
                ("state_on", .string("on")), ("state_off", .string("off")),
                ("command_topic", .string(topics.command)),
                ("payload_on", .string(Self.command(["display_power", "on"]))),
                ("payload_off", .string(Self.command(["display_power", "off"]))),
                ("icon", .string("mdi:television"))]),
            ("number", "volume", [
                ("name", .string("Volume")), ("value_template", .string("{{ value_json.volume }}")),
                ("command_topic", .string(topics.command)),
                ("command_template", .string(#"{"command":["volume",{{ value | int }}]}"#)),
                ("min", .integer(0)), ("max", .integer(100)), ("step", .integer(1)),
                ("icon", .string("mdi:volume-high"))]),
            ("switch", "mute", [
                ("name", .string("Mute")), ("value_template", .string("{{ 'on' if value_json.muted else 'off' }}")),
                ("state_on", .string("on")), ("state_off", .string("off")),
                ("command_topic", .string(topics.command)),
                ("payload_on", .string(#"{"command":["mute",true]}"#)),
                ("payload_off", .string(#"{"command":["mute",false]}"#)),
                ("icon", .string("mdi:volume-off"))]),
        ]
        for (object, name, words, icon) in [("toggle", "Play/pause", ["toggle"], "mdi:play-pause"),
                                            ("next", "Next", ["next"], "mdi:skip-next"),
                                            ("previous", "Previous", ["previous"], "mdi:skip-previous")] {
            entities.append(("button", object, [("name", .string(name)), ("command_topic", .string(topics.command)),
                                                ("payload_press", .string(Self.command(words))), ("icon", .string(icon))]))
        }
        if screen {
            entities.append(("image", "screen", [("name", .string("Screen")), ("image_topic", .string(topics.screen)),
                                                 ("content_type", .string("image/png"))]))
        }
        var triggerIDs: Set<String> = []
        for trigger in triggers {
            // `fire drill` and `fire_drill` would share an id, which Home Assistant refuses: a number tells them apart.
            var object = "trigger_" + Self.id(trigger), suffix = 2
            while !triggerIDs.insert(object).inserted {
                object = "trigger_" + Self.id(trigger) + "_\(suffix)"
                suffix += 1
            }
            entities.append(("button", object, [
                ("name", .string("Trigger \(trigger)")), ("command_topic", .string(topics.command)),
                ("payload_press", .string(Self.command(["trigger", trigger]))), ("icon", .string("mdi:gesture-tap-button"))]))
        }
        return entities.map { entity in
            var fields = entity.fields
            let uniqueID = "\(nodeID)_\(entity.object)"
            fields.insert(("unique_id", .string(uniqueID)), at: 1)
            // The entity id Home Assistant gives it (2025.10 and later; `object_id` before, now refused).
            fields.insert(("default_entity_id", .string("\(entity.component).\(uniqueID)")), at: 2)
            // The status carries everything the entities show; its will says offline.
            fields.append(("availability_topic", .string(topics.status)))
            fields.append(("availability_template", .string("{{ 'online' if value_json.online else 'offline' }}")))
            if ["sensor", "binary_sensor", "switch", "number"].contains(entity.component) {
                fields.append(("state_topic", .string(topics.status)))
            }
            fields.append(("device", device))
            return Message(topic: "\(prefix)/\(entity.component)/\(nodeID)/\(entity.object)/config",
                           payload: ControlValue.object(fields).json)
        }
    }

    private var device: ControlValue {
        .object([("identifiers", .array([.string(nodeID)])), ("name", .string(topics.name)),
                 ("manufacturer", .string("kiosk")), ("model", .string("kiosk signage player")),
                 ("sw_version", .string(version))])
    }

    /// A command line of the control socket, as the entity sends it.
    static func command(_ words: [String]) -> String {
        ControlValue.object([("command", .array(words.map { .string($0) }))]).json
    }

    /// Letters, digits, `_` and `-` kept, anything else `_`: Home Assistant's object ids.
    static func id(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }
}
