import KioskCore
import Synchronization
import SystemPackage
import Testing
@testable import KioskControl

/// `override NAME` and `override_cancel [NAME]`: rows of the command table answered by the
/// overrides service (KioskService's `OverrideDesk`), its refusal after the command's word.

private final class FakeOverrides: OverrideControl {
    let asked = Mutex<[String]>([])
    func start(_ name: String) -> String? {
        asked.withLock { $0.append("start \(name)") }
        return name == "flood" ? "no override 'flood': kiosk.conf defines 'fire'" : nil
    }
    func startText(_ name: String, text: String, priority: Int?, seconds: Double?) -> String? {
        asked.withLock { $0.append("text \(name) \(text) \(priority.map(String.init) ?? "-") \(seconds.map { "\($0)" } ?? "-")") }
        return nil
    }
    func cancel(_ name: String?) -> String? {
        asked.withLock { $0.append("cancel \(name ?? "all")") }
        return nil
    }
}

private func reply(_ line: String, overrides: FakeOverrides?) -> String {
    let dispatcher = ControlDispatcher(services: Services(player: FakePlayer(), overrides: overrides, baseDirectory: "/media"))
    return dispatcher.reply(to: line, from: ControlConnection(fd: FileDescriptor(rawValue: -1))).json
}

@Test func overrideCommandsReachTheOverridesService() {
    let overrides = FakeOverrides()
    #expect(reply(#"{"command": ["override", "fire"], "request_id": 1}"#, overrides: overrides)
            == #"{"request_id":1,"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["override", "flood"]}"#, overrides: overrides)
            == #"{"error":"override: no override 'flood': kiosk.conf defines 'fire'"}"#)
    #expect(reply(#"{"command": ["override_cancel", "fire"]}"#, overrides: overrides) == #"{"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["override_cancel"]}"#, overrides: overrides) == #"{"error":"success","data":null}"#)
    #expect(overrides.asked.withLock { $0 } == ["start fire", "start flood", "cancel fire", "cancel all"])
    #expect(reply(#"{"command": ["override"]}"#, overrides: overrides) == #"{"error":"override: takes 1 argument (<name>), got 0"}"#)
    #expect(reply(#"{"command": ["override_cancel", "a", "b"]}"#, overrides: overrides)
            == #"{"error":"override_cancel: takes 0 to 1 argument ([name]), got 2"}"#)
    #expect(reply(#"{"command": ["override", "fire"]}"#, overrides: nil)
            == #"{"error":"override: kiosk.conf defines no overrides (or this is `kiosk play`, which has none)"}"#)
}

@Test func overrideTextTakesAName_WordsAndOptionallyAPriorityAndSeconds() {
    let overrides = FakeOverrides()
    #expect(reply(#"{"command": ["override_text", "notice", "Closed at 5"]}"#, overrides: overrides) == #"{"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["override_text", "notice", "Line one\nLine two", "200", 60]}"#, overrides: overrides)
            == #"{"error":"success","data":null}"#)
    #expect(overrides.asked.withLock { $0 } == ["text notice Closed at 5 - -", "text notice Line one\nLine two 200 60.0"])
    #expect(reply(#"{"command": ["override_text", "notice", "   "]}"#, overrides: overrides) == #"{"error":"override_text: text has no words"}"#)
    #expect(reply(#"{"command": ["override_text", "no tice", "Hi"]}"#, overrides: overrides)
            == #"{"error":"override_text: name \"no tice\" has a space or a comma, or is over 64 characters; expected a plain name"}"#)
    #expect(reply(#"{"command": ["override_text", "notice", "Hi", 5, 0]}"#, overrides: overrides)
            == #"{"error":"override_text: seconds 0.0 is out of range (0.001 to a year)"}"#)
    #expect(reply(#"{"command": ["override_text", "notice"]}"#, overrides: overrides)
            == #"{"error":"override_text: takes 2 to 4 arguments (<name> <text> [priority] [seconds]), got 1"}"#)
    let long = String(repeating: "a", count: 1001)
    #expect(reply(#"{"command": ["override_text", "notice", "\#(long)"]}"#, overrides: overrides)
            == #"{"error":"override_text: text is 1001 characters (1001 bytes); at most 1000 (4096 bytes)"}"#)
    let marked = "a" + String(repeating: "\u{301}", count: 3000)   // one character, 6001 bytes
    #expect(reply(#"{"command": ["override_text", "notice", "\#(marked)"]}"#, overrides: overrides)
            == #"{"error":"override_text: text is 1 characters (6001 bytes); at most 1000 (4096 bytes)"}"#)
}

