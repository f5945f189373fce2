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
