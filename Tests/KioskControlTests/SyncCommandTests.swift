import KioskCore
import Synchronization
import SystemPackage
import Testing
@testable import KioskControl

/// `sync_now` and the `sync` property on the control socket (content sync, issue 21).

final class FakeContentSync: ContentSyncControl {
    private let asked = Mutex(0)
    let status: ContentSyncStatus
    init(status: ContentSyncStatus) { self.status = status }
    func syncNow() { asked.withLock { $0 += 1 } }
    var syncStatus: ControlValue { status.value }
    var serviceStatus: String? { status.serviceText }
    var timesAsked: Int { asked.withLock { $0 } }
}

private func reply(_ line: String, contentSync: FakeContentSync?) -> String {
    let dispatcher = ControlDispatcher(services: Services(player: FakePlayer(), contentSync: contentSync, baseDirectory: "/media"))
    return dispatcher.reply(to: line, from: ControlConnection(fd: FileDescriptor(rawValue: -1))).json
}

@Test func syncNowAsksForAPassAndTheSyncPropertyIsTheStatus() {
    var status = ContentSyncStatus()
    status.state = .fetching
    status.filesTotal = 3
    let sync = FakeContentSync(status: status)
    #expect(reply(#"{"command": ["sync_now"], "request_id": 1}"#, contentSync: sync) == #"{"request_id":1,"error":"success","data":null}"#)
    #expect(sync.timesAsked == 1)
    let property = reply(#"{"command": ["get", "sync"], "request_id": 2}"#, contentSync: sync)
    #expect(property.contains(#""data":{"state":"fetching","files_done":0,"files_total":3,"#))
}

@Test func withoutContentSyncTheCommandIsRefusedAndThePropertyNull() {
    #expect(reply(#"{"command": ["sync_now"], "request_id": 1}"#, contentSync: nil)
            == #"{"request_id":1,"error":"sync_now: content sync is off (kiosk.conf sync.manifest is none)"}"#)
    #expect(reply(#"{"command": ["get", "sync"], "request_id": 2}"#, contentSync: nil) == #"{"request_id":2,"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["sync_now", "x"]}"#, contentSync: nil).contains("sync_now"))
    #expect(ControlCommand.usage.contains { $0.name == "sync_now" })
}
