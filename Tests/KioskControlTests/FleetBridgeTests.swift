import Foundation
import KioskCore
import Logging
import Synchronization
import Testing
@testable import KioskControl

/// The MQTT bridge against a recording link and the fake player: commands take the socket's
/// path (same requests, same replies), events become the socket's lines, the status is retained,
/// and nothing is published while the broker is away.

/// What the bridge published, in order.
final class RecordingLink: FleetLink {
    struct Publication: Equatable {
        let topic: String
        let payload: String
        let retain: Bool
    }
    private let published = Mutex<[Publication]>([])
    var all: [Publication] { published.withLock { $0 } }
    func publish(topic: String, payload: String, retain: Bool) {
        published.withLock { $0.append(Publication(topic: topic, payload: payload, retain: retain)) }
    }
    func on(_ topic: String) -> [Publication] { all.filter { $0.topic == topic } }

    /// Waits (a deadline for a hang, not a speed) until `condition` holds.
    func wait(_ condition: (RecordingLink) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if condition(self) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition(self)
    }
}

private let topics = FleetTopics(name: "k1", groups: ["wall"])

private func startedBridge(_ link: RecordingLink, player: FakePlayer, connected: Bool = true,
                           triggers: FakeTriggers? = nil) -> FleetBridge {
    let bridge = FleetBridge(topics: topics, link: link, statusInterval: 3600, logger: Logger(label: "test"))
    bridge.start(Services(player: player, triggers: triggers, baseDirectory: "/media"))
    if connected { bridge.connectionOpened() }
    return bridge
}

@Test func aCommandTakesTheSocketsPathAndIsAnsweredOnTheReplyTopic() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player)
    defer { bridge.stop() }
    bridge.received(command: #"{"command": ["pause"], "request_id": 7}"#, on: "kiosk/group/wall/cmd")
    bridge.received(command: #"{"command": ["goto", 5]}"#, on: "kiosk/k1/cmd")
    bridge.received(command: "not json", on: "kiosk/k1/cmd")
    #expect(link.wait { $0.on(topics.reply).count == 3 })
    #expect(link.on(topics.reply).map(\.payload) == [
        #"{"request_id":7,"error":"success","data":null}"#,
        #"{"error":"goto: no item 5: the playlist has 2 items, counted from 0"}"#,
        #"{"error":"malformed JSON: the line is not a JSON text"}"#,
    ])
    #expect(link.on(topics.reply).allSatisfy { !$0.retain })
    #expect(player.requests == [.pause, .goto(index: 5)])   // the goto refused by the engine (the fake's navigator)
}

/// An empty message (clearing a retained one on a command topic) is no request, and one over
/// the socket's 64 KiB line is refused unread, as on the socket: the bridge answered both.
@Test func emptyAndOverlongMessagesAreTreatedAsOnTheSocket() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player)
    defer { bridge.stop() }
    bridge.received(command: "", on: "kiosk/k1/cmd")
    bridge.received(command: " \n", on: "kiosk/k1/cmd")
    let padding = String(repeating: " ", count: 100_000)
    bridge.received(command: #"{"command": ["pause"], "request_id": 1}"# + padding, on: "kiosk/k1/cmd")
    bridge.received(command: #"{"command": ["play"], "request_id": 2}"#, on: "kiosk/k1/cmd")
    #expect(link.wait { $0.on(topics.reply).count == 2 })
    #expect(link.on(topics.reply).map(\.payload) == [
        #"{"error":"message longer than 65536 bytes: not read"}"#,
        #"{"request_id":2,"error":"success","data":null}"#,
    ])
    #expect(player.requests == [.play])
}

@Test func aTriggerFiresOverMQTTAsOnTheSocket() {
    let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)
    let entries = ["a", "b"].map { name in
        PlaylistEntry(media: .file("/m/" + name), item: ItemConfig(source: .file("/m/" + name), location: location), itemIndex: 0)
    }
    let triggers = FakeTriggers(TriggerSet([TriggerConfig(name: "welcome", keys: ["KEY_F1"], content: .item(1), then: .restart,
                                                          location: location)],
                                           defaultEntries: entries, playlists: [:]) { _ in ([], []) })
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player, triggers: triggers)
    defer { bridge.stop() }
    bridge.received(command: #"{"command": ["trigger", "welcome"], "request_id": 3}"#, on: "kiosk/group/wall/cmd")
    #expect(link.wait { !$0.on(topics.reply).isEmpty })
    #expect(link.on(topics.reply).first?.payload == #"{"request_id":3,"error":"success","data":null}"#)
    #expect(player.requests == [triggers.triggers.trigger(forKey: "KEY_F1")!.request!])
}

@Test func observeIsRefusedWithoutAConnectionToSendChangesOn() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player)
    defer { bridge.stop() }
    bridge.received(command: #"{"command": ["observe", "volume"]}"#, on: "kiosk/k1/cmd")
    #expect(link.wait { !$0.on(topics.reply).isEmpty })
    #expect(link.on(topics.reply).first?.payload
            == #"{"error":"observe: only on a control socket connection, which is where property changes are sent"}"#)
}

@Test func eventsBecomeTheSocketsLinesAndRefreshTheRetainedStatus() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player)
    defer { bridge.stop() }
    #expect(link.wait { !$0.on(topics.status).isEmpty })   // at once on connecting
    let before = link.on(topics.status).count
    bridge.post(.time(MediaTime(value: 3, timescale: 1), item: 1))   // periodic: not an event line, no status
    bridge.post(.displayPower(on: false))
    #expect(link.wait { !$0.on(topics.event).isEmpty && $0.on(topics.status).count > before })
    #expect(link.on(topics.event).map(\.payload) == [#"{"event":"display_power","item":null,"time":12.0,"on":false}"#])
    let status = link.on(topics.status).last
    #expect(status?.retain == true)
    #expect(status?.payload == #"{"online":true,"state":"playing","item":1,"title":"b","next":"c","time":12.0,"display_power":"off","version":"\#(KioskVersion.text)","volume":80,"muted":false}"#)
}

@Test func nothingIsPublishedWhileTheBrokerIsAwayAndTheStatusFollowsTheReconnect() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player, connected: false)
    defer { bridge.stop() }
    bridge.post(.displayPower(on: true))
    bridge.recorded(play: #"{"item":1}"#)
    // The bridge's thread has had its turn once a later command is answered (replies go out
    // regardless: a command only arrives over a live connection).
    bridge.received(command: #"{"command": ["get", "volume"]}"#, on: "kiosk/k1/cmd")
    #expect(link.wait { !$0.on(topics.reply).isEmpty })
    #expect(link.on(topics.event).isEmpty && link.on(topics.status).isEmpty && link.on(topics.plays).isEmpty)
    bridge.connectionOpened()
    #expect(link.wait { !$0.on(topics.status).isEmpty })
    bridge.recorded(play: #"{"item":1}"#)
    #expect(link.wait { !$0.on(topics.plays).isEmpty })
    #expect(link.on(topics.plays).map(\.payload) == [#"{"item":1}"#])
}

@Test func aStopPublishesTheOfflineStatusRetained() {
    let link = RecordingLink(), player = FakePlayer()
    let bridge = startedBridge(link, player: player)
    #expect(link.wait { !$0.on(topics.status).isEmpty })
    bridge.stop()
    #expect(link.on(topics.status).last == .init(topic: topics.status, payload: FleetStatus.offline(version: KioskVersion.text), retain: true))
    // Nothing after the stop.
    let count = link.all.count
    bridge.post(.displayPower(on: true))
    Thread.sleep(forTimeInterval: 0.1)
    #expect(link.all.count == count)
}
