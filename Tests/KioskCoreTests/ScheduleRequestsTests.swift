import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Suite("Schedule actions as player requests")
struct ScheduleRequestsTests {
    let requests = ScheduleRequests(playlists: ["default": playlistEntries("a"), "lunch": playlistEntries("l1", "l2"), "news": playlistEntries("n")],
                                    insertItems: ["/m/ad.mp4": playlistEntries("ad.mp4")], switchMode: .atSeam)

    @Test func aPlaylistByNameBecomesItsEntriesAtTheSwitchMode() {
        let state = ScheduleState(entry: 0, playlist: "lunch", powerOn: true)
        #expect(requests.requests(for: .switchPlaylist(state)) == [.switchPlaylist(playlistEntries("l1", "l2"), when: .atSeam)])
        var now = requests
        now.switchMode = .now
        #expect(now.requests(for: .switchPlaylist(state)) == [.switchPlaylist(playlistEntries("l1", "l2"), when: .now)])
    }

    @Test func powerBecomesADisplayPowerRequest() {
        #expect(requests.requests(for: .power(on: false)) == [.setDisplayPower(on: false)])
        #expect(requests.requests(for: .power(on: true)) == [.setDisplayPower(on: true)])
    }

    @Test func insertsPlayTheirItemOrPlaylistOnce() {
        let item = TimedInsert(name: "ad", at: WallTime(hour: 12, minute: 0)!, content: .item("/m/ad.mp4"))
        let list = TimedInsert(name: "news", at: WallTime(hour: 12, minute: 0)!, content: .playlist("news"))
        #expect(requests.requests(for: .playInsert(item)) == [.playOnce(.entries(playlistEntries("ad.mp4")), when: .atSeam)])
        #expect(requests.requests(for: .playInsert(list)) == [.playOnce(.entries(playlistEntries("n")), when: .atSeam)])
    }

    @Test func anInsertWithNothingToPlayAsksNothing() {
        let missing = TimedInsert(name: "gone", at: WallTime(hour: 12, minute: 0)!, content: .playlist("nope"))
        #expect(requests.requests(for: .playInsert(missing)) == [])
    }
}
