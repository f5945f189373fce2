import KioskCore
import Synchronization
import SystemPackage
import Testing
@testable import KioskControl

/// `trigger NAME` on the control socket: it fires kiosk.conf's trigger as its key would (the
/// same request), and says why not when it cannot.

/// A table a test can replace, as a reload does.
final class FakeTriggers: TriggerControl {
    private let table: Mutex<TriggerSet>
    init(_ table: TriggerSet) { self.table = Mutex(table) }
    var triggers: TriggerSet {
        get { table.withLock { $0 } }
        set { table.withLock { $0 = newValue } }
    }
}

private let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)

private func table(_ configs: TriggerConfig...) -> TriggerSet {
    TriggerSet(configs, defaultEntries: playlistEntries("a", "b"), playlists: [:]) { _ in ([], []) }
}

private func playlistEntries(_ names: String...) -> [PlaylistEntry] {
    names.map { name in
        PlaylistEntry(media: .file("/m/" + name), item: ItemConfig(source: .file("/m/" + name), location: location), itemIndex: 0)
    }
}

private func reply(_ line: String, to player: FakePlayer, triggers: FakeTriggers?) -> String {
    let dispatcher = ControlDispatcher(services: Services(player: player, triggers: triggers, baseDirectory: "/media"))
    return dispatcher.reply(to: line, from: ControlConnection(fd: FileDescriptor(rawValue: -1))).json
}

@Test func triggerSendsTheSameRequestAsItsKey() {
    let player = FakePlayer()
    let triggers = FakeTriggers(table(TriggerConfig(name: "welcome", keys: ["KEY_F1"], content: .item(1), then: .restart,
                                                    location: location)))
    #expect(reply(#"{"command": ["trigger", "welcome"], "request_id": 4}"#, to: player, triggers: triggers)
            == #"{"request_id":4,"error":"success","data":null}"#)
    #expect(player.requests == [triggers.triggers.trigger(forKey: "KEY_F1")!.request!])
    #expect(player.requests == [.playOnce(.entries(playlistEntries("b")), when: .now,
                                          trigger: TriggerPlay(name: "welcome", then: .restart))])
}

@Test func triggerSaysWhyItCannotFire() {
    let player = FakePlayer()
    let triggers = FakeTriggers(table(TriggerConfig(name: "welcome", content: .item(1), location: location),
                                      TriggerConfig(name: "gone", content: .item(5), location: location)))
    #expect(reply(#"{"command": ["trigger", "welcom"]}"#, to: player, triggers: triggers)
            == #"{"error":"trigger: no trigger 'welcom': kiosk.conf defines 'welcome', 'gone'"}"#)
    #expect(reply(#"{"command": ["trigger", "gone"]}"#, to: player, triggers: triggers)
            == #"{"error":"trigger: 'gone' has nothing to play: item 5 is not in the default playlist (it has 2 entries, counted from 0)"}"#)
    #expect(reply(#"{"command": ["trigger"]}"#, to: player, triggers: triggers)
            == #"{"error":"trigger: takes 1 argument (<name>), got 0"}"#)
    #expect(reply(#"{"command": ["trigger", 3]}"#, to: player, triggers: triggers)
            == #"{"error":"trigger: name must be a string, got a number 3"}"#)
    #expect(reply(#"{"command": ["trigger", "welcome"]}"#, to: player, triggers: nil)
            == #"{"error":"trigger: kiosk.conf defines no triggers"}"#)
    #expect(player.requests.isEmpty)
}

/// A reload hands the socket a new table: the next command reads it.
@Test func triggerReadsTheTableInForce() {
    let player = FakePlayer()
    let triggers = FakeTriggers(table(TriggerConfig(name: "old", content: .item(0), location: location)))
    let dispatcher = ControlDispatcher(services: Services(player: player, triggers: triggers, baseDirectory: "/media"))
    let connection = ControlConnection(fd: FileDescriptor(rawValue: -1))
    triggers.triggers = table(TriggerConfig(name: "new", content: .item(0), location: location))
    #expect(dispatcher.reply(to: #"{"command": ["trigger", "new"]}"#, from: connection).json == #"{"error":"success","data":null}"#)
    #expect(dispatcher.reply(to: #"{"command": ["trigger", "old"]}"#, from: connection).json
            == #"{"error":"trigger: no trigger 'old': kiosk.conf defines 'new'"}"#)
}
