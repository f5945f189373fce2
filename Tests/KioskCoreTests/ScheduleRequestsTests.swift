import Testing
@testable import KioskCore

private func entries(_ names: String...) -> [PlaylistEntry] {
    names.map { name in
        PlaylistEntry(media: .file("/m/" + name),
                      item: ItemConfig(source: .file("/m/" + name), location: SourceLocation(file: "kiosk.conf", line: 1, column: 1)),
                      itemIndex: 0)
    }
}

@Suite("Schedule actions as player requests")
struct ScheduleRequestsTests {
    let requests = ScheduleRequests(playlists: ["default": entries("a"), "lunch": entries("l1", "l2"), "news": entries("n")],
                                    insertItems: ["/m/ad.mp4": entries("ad.mp4")], switchMode: .atSeam)

    @Test func aPlaylistByNameBecomesItsEntriesAtTheSwitchMode() {
        let state = ScheduleState(entry: 0, playlist: "lunch", powerOn: true)
        #expect(requests.requests(for: .switchPlaylist(state)) == [.switchPlaylist(entries("l1", "l2"), when: .atSeam)])
        var now = requests
        now.switchMode = .now
        #expect(now.requests(for: .switchPlaylist(state)) == [.switchPlaylist(entries("l1", "l2"), when: .now)])
    }

    @Test func powerBecomesADisplayPowerRequest() {
        #expect(requests.requests(for: .power(on: false)) == [.setDisplayPower(on: false)])
        #expect(requests.requests(for: .power(on: true)) == [.setDisplayPower(on: true)])
    }

    @Test func insertsPlayTheirItemOrPlaylistOnce() {
        let item = TimedInsert(name: "ad", at: WallTime(hour: 12, minute: 0)!, content: .item("/m/ad.mp4"))
        let list = TimedInsert(name: "news", at: WallTime(hour: 12, minute: 0)!, content: .playlist("news"))
        #expect(requests.requests(for: .playInsert(item)) == [.playOnce(.entries(entries("ad.mp4")), when: .atSeam)])
        #expect(requests.requests(for: .playInsert(list)) == [.playOnce(.entries(entries("n")), when: .atSeam)])
    }

    @Test func anInsertWithNothingToPlayAsksNothing() {
        let missing = TimedInsert(name: "gone", at: WallTime(hour: 12, minute: 0)!, content: .playlist("nope"))
        #expect(requests.requests(for: .playInsert(missing)) == [])
    }
}
