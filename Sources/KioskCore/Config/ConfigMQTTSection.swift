import Yams

/// kiosk.conf's `mqtt` section (model: `MQTTConfig`).
extension ConfigWalker {
    static let mqttKeys = ["broker", "name", "group", "username", "password", "password_file", "ca_file", "cert_file",
                           "key_file", "keepalive", "qos", "proof_of_play", "discovery", "screen_interval"]

    /// `logsPlays`: `logging.proof_of_play` is set (it makes the lines `proof_of_play` publishes).
    func readMQTT(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem, logsPlays: Bool) -> MQTTConfig {
        var mqtt = MQTTConfig()
        guard let section = section(node, name: "mqtt", allowedKeys: Self.mqttKeys) else { return mqtt }
        let expectedBroker = "a broker URL like mqtt://host:1883 or mqtts://host:8883"
        if let text = string(section, "broker", expected: expectedBroker) {
            switch MQTTBroker.parse(text) {
            case .success(let broker): mqtt.broker = broker
            case .failure(let error): report(section["broker"], "'broker' in mqtt is '\(text)': \(error); expected \(expectedBroker)")
            }
        } else if section["broker"] == nil {
            report(section.node, "the mqtt section has no 'broker'; expected \(expectedBroker) (or leave the section out)")
        }
        if let name = topicLevel(section, "name") { mqtt.name = name }
        if let groups = stringList(section, "group", expected: "group names (topic levels without / + #)") {
            mqtt.groups = groups
            if let node = section["group"] { checkTopicLevels(groups, key: "group", at: node) }
        }
        if let username = string(section, "username", expected: "a user name") { mqtt.username = username }
        if let password = string(section, "password", expected: "a password") { mqtt.password = password }
        if let path = string(section, "password_file", expected: "the path of a file holding the password") {
            let resolved = PathText.resolve(path, against: baseDirectory)
            if fileSystem.kind(ofItemAt: resolved) == .file { mqtt.passwordFile = resolved }
            else { report(section["password_file"], "password file '\(resolved)' does not exist; expected the path of a file holding the password") }
        }
        if section["password"] != nil, section["password_file"] != nil {
            report(section.keyNode("password_file"), "mqtt has both 'password' and 'password_file'; expected one of them")
        }
        if section["username"] == nil, let key = section.keyNode("password") ?? section.keyNode("password_file") {
            report(key, "mqtt has a password but no 'username'; expected both")
        }
        mqtt.caFile = existingFile(section, "ca_file", what: "a CA certificate (PEM)", baseDirectory: baseDirectory, fileSystem: fileSystem)
        mqtt.certFile = existingFile(section, "cert_file", what: "a client certificate (PEM)", baseDirectory: baseDirectory, fileSystem: fileSystem)
        mqtt.keyFile = existingFile(section, "key_file", what: "the client certificate's key (PEM)", baseDirectory: baseDirectory, fileSystem: fileSystem)
        if (section["cert_file"] == nil) != (section["key_file"] == nil),
           let key = section.keyNode("cert_file") ?? section.keyNode("key_file") {
            report(key, "mqtt has only one of 'cert_file' and 'key_file'; expected both (a client certificate and its key) or neither")
        }
        if let broker = mqtt.broker, !broker.usesTLS,
           let key = section.keyNode("ca_file") ?? section.keyNode("cert_file") ?? section.keyNode("key_file") {
            report(key, "TLS files are set but the broker is \(broker) (no TLS); expected an mqtts:// broker")
        }
        if let keepalive = integer(section, "keepalive", in: 5...3600, unit: " seconds") { mqtt.keepalive = keepalive }
        if let qos = integer(section, "qos", in: 0...2) { mqtt.qos = qos }
        if let plays = bool(section, "proof_of_play") {
            mqtt.proofOfPlay = plays
            // kiosk check said all was well, and the plays topic stayed silent for good.
            if plays, !logsPlays {
                warn(section["proof_of_play"], "'proof_of_play' in mqtt is on but 'logging.proof_of_play' is not set, so no play "
                     + "is recorded to publish; expected logging: {proof_of_play: /var/lib/kiosk/plays.jsonl} as well")
            }
        }
        if let prefix = topicLevel(section, "discovery"), prefix != "off" { mqtt.discovery = prefix }
        if section["screen_interval"]?.string == "off" {
            mqtt.screenInterval = nil
        } else if let seconds = integer(section, "screen_interval", in: 10...86400, unit: " seconds (or off)") {
            mqtt.screenInterval = seconds
        }
        return mqtt
    }

    /// A topic level (name, group): not empty, and none of MQTT's separators and wildcards.
    private func topicLevel(_ section: SectionMap, _ key: String) -> String? {
        guard let text = string(section, key, expected: "a topic level without / + #") else { return nil }
        guard let node = section[key] else { return nil }
        return checkTopicLevels([text], key: key, at: node) ? text : nil
    }

    @discardableResult
    private func checkTopicLevels(_ levels: [String], key: String, at node: Node) -> Bool {
        for level in levels {
            if let problem = FleetTopics.problem(withLevel: level) {
                report(node, "'\(key)' in mqtt is '\(quotedForMessage(level))': \(problem); expected a topic level without / + #")
                return false
            }
        }
        return true
    }

    private func existingFile(_ section: SectionMap, _ key: String, what: String, baseDirectory: String,
                              fileSystem: any PlaylistFileSystem) -> String? {
        guard let path = string(section, key, expected: "the path of \(what)") else { return nil }
        let resolved = PathText.resolve(path, against: baseDirectory)
        guard fileSystem.kind(ofItemAt: resolved) == .file else {
            report(section[key], "\(key) '\(quotedForMessage(resolved))' does not exist; expected the path of \(what)")
            return nil
        }
        return resolved
    }
}
