import Foundation
import KioskCore
import Logging
import Testing
@testable import KioskControl

/// Walks the command table through every request source: each command, with its example
/// arguments, over a real control socket and over the MQTT bridge, with the same `Services`.
/// The replies must be byte for byte the same (README: "the same replies"), and no source may
/// answer "unknown command" to a word the table has. `observe`/`unobserve` are the one kind a
/// connectionless source cannot honour: over MQTT they are refused with the reason.

private let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)

/// Every service present, as in `kiosk run` with a schedule, a trigger and content sync.
private func fullServices(player: FakePlayer) -> Services {
    let entries = ["a", "b"].map { name in
        PlaylistEntry(media: .file("/m/" + name), item: ItemConfig(source: .file("/m/" + name), location: location), itemIndex: 0)
    }
    let triggers = FakeTriggers(TriggerSet([TriggerConfig(name: "welcome", keys: ["KEY_F1"], content: .item(1), then: .restart,
                                                          location: location)],
                                           defaultEntries: entries, playlists: [:]) { _ in ([], []) })
    return Services(player: player, schedule: FakeSchedule(), triggers: triggers,
                    contentSync: FakeContentSync(status: ContentSyncStatus()), baseDirectory: "/nonexistent-media")
}

/// The request line for a table row, with a request id.
private func line(for spec: ControlCommandSpec, id: Int) -> String {
    ControlValue.object([("command", .array([.string(spec.name)] + spec.example)), ("request_id", .integer(Int64(id)))]).json
}

/// The replies of the socket and of MQTT to every row, in table order.
private func walk(_ services: Services) throws -> (socket: [String], mqtt: [String]) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-walk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ControlServer(path: directory.appendingPathComponent("control.socket").path, logger: Logger(label: "test"))
    server.start(services)
    defer { server.stop() }
    let client = try ControlClient(path: server.path)
    var socket: [String] = []
    for (index, spec) in ControlCommandTable.all.enumerated() {
        try client.send(line(for: spec, id: index))
        socket.append(try #require(try client.readLine()))
    }

    let link = RecordingLink()
    let bridge = FleetBridge(topics: FleetTopics(name: "k1", groups: []), link: link, statusInterval: 3600, logger: Logger(label: "test"))
    bridge.start(services)
    defer { bridge.stop() }
    bridge.connectionOpened()
    for (index, spec) in ControlCommandTable.all.enumerated() {
        bridge.received(command: line(for: spec, id: index), on: "kiosk/k1/cmd")
    }
    let replyTopic = bridge.topics.reply
    #expect(link.wait { $0.on(replyTopic).count == ControlCommandTable.all.count })
    return (socket, link.on(replyTopic).map(\.payload))
}

@Test(arguments: [true, false])
func everyCommandOfTheTableGetsTheSameReplyOverTheSocketAndMQTT(allServices: Bool) throws {
    let socketPlayer = FakePlayer(), mqttPlayer = FakePlayer()
    // Two players with the same properties, so each source's requests can be counted apart.
    let socketServices = allServices ? fullServices(player: socketPlayer) : Services(player: socketPlayer, baseDirectory: "/nonexistent-media")
    let mqttServices = allServices ? fullServices(player: mqttPlayer) : Services(player: mqttPlayer, baseDirectory: "/nonexistent-media")
    let socketReplies = try walk(socketServices).socket
    let mqttReplies = try walk(mqttServices).mqtt
    try #require(socketReplies.count == ControlCommandTable.all.count && mqttReplies.count == ControlCommandTable.all.count)
    for (index, spec) in ControlCommandTable.all.enumerated() {
        let socket = socketReplies[index], mqtt = mqttReplies[index]
        #expect(!socket.contains("unknown command") && !mqtt.contains("unknown command"), "\(spec.name)")
        #expect(!socket.contains("takes ") && !socket.contains(" must be "), "the example of \(spec.name) is well formed: \(socket)")
        if spec.answeredBy == .connection {
            #expect(socket == #"{"request_id":\#(index),"error":"success","data":null}"#)
            #expect(mqtt.contains("only on a control socket connection"), "\(spec.name): \(mqtt)")
        } else {
            #expect(socket == mqtt, "\(spec.name): socket \(socket), MQTT \(mqtt)")
        }
    }
    // Both sources sent the engine the same requests.
    #expect(socketPlayer.requests == mqttPlayer.requests)
    #expect(!socketPlayer.requests.isEmpty)
}

@Test func theTableNamesEachCommandOnceAndCommandsListsItAll() throws {
    let names = ControlCommandTable.all.map(\.name)
    #expect(Set(names).count == names.count)
    let listed = ControlMessage.commandList["commands"]
    #expect(listed == .array(ControlCommandTable.all.map { .string($0.usage) }))
    // Every answering part is used by some row, and `help` is `commands`.
    #expect(Set(ControlCommandTable.all.map(\.answeredBy)) == Set(ControlAnswerer.allCases))
    #expect(try ControlRequestParser.parse(#"{"command": "help"}"#).command == .commands)
    #expect(ControlMessage.commandList["events"] == .array(ControlEventName.allCases.map { .string($0.rawValue) }))
}

/// The table walked through the third kind of source: a command trigger (what a key, a touch
/// zone or a GPIO line fires) runs every row a trigger may run, and `trigger NAME` answers what
/// the row's own line answers, the engine getting the same requests.
@Test func everyCommandATriggerMayRunGetsTheSameReplyThroughTheTrigger() throws {
    func word(_ value: ControlValue) -> String {
        if case .string(let text) = value { return text }
        return value.json
    }
    let runnable = ControlCommandTable.all.filter { !["trigger", "observe", "unobserve"].contains($0.name) }
    let configs = runnable.enumerated().map { index, spec in
        TriggerConfig(name: "t\(index)", content: .command([spec.name] + spec.example.map(word)), location: location)
    }
    let set = TriggerSet(configs, defaultEntries: [], playlists: [:]) { _ in ([], []) }
    let directPlayer = FakePlayer(), triggerPlayer = FakePlayer()
    func services(_ player: FakePlayer) -> Services {
        Services(player: player, schedule: FakeSchedule(), triggers: FakeTriggers(set),
                 contentSync: FakeContentSync(status: ContentSyncStatus()), baseDirectory: "/nonexistent-media")
    }
    let direct = ControlDispatcher(services: services(directPlayer))
    let viaTrigger = ControlDispatcher(services: services(triggerPlayer))
    for (index, spec) in runnable.enumerated() {
        let own = direct.reply(to: ControlValue.object([("command", .array([.string(spec.name)] + spec.example))]).json)
        let fired = viaTrigger.reply(to: #"{"command": ["trigger", "t\#(index)"]}"#)
        #expect(own.json == fired.json, "\(spec.name): its line \(own.json), its trigger \(fired.json)")
        #expect(!fired.json.contains("unknown command") && !fired.json.contains("\"trigger: "), "\(spec.name): \(fired.json)")
    }
    #expect(directPlayer.requests == triggerPlayer.requests)
    #expect(!triggerPlayer.requests.isEmpty)
    #expect(runnable.count == ControlCommandTable.all.count - 3)
}
