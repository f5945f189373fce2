import KioskCore
import KioskPlayer
import Synchronization
import SystemPackage
import Testing
@testable import KioskControl

/// The dispatcher against a fake player (it depends on `ControlledPlayer`, not the engine):
/// which request each command sends, and the replies the socket writes, byte for byte.

/// Records what it is sent; its properties are whatever a test sets. `perform` decides as the
/// engine does, with the engine's own pure parts (`PlaybackState`, `PlaylistNavigator`) set to
/// the fake's status and playlist length, so the replies carry the engine's refusals.
final class FakePlayer: ControlledPlayer {
    private let sent = Mutex<[PlayerRequest]>([])
    var requests: [PlayerRequest] { sent.withLock { $0 } }
    func send(_ request: PlayerRequest) { sent.withLock { $0.append(request) } }

    func perform(_ request: PlayerRequest) -> PlayerRefusal? {
        send(request)
        switch request {
        case .goto, .playOnce(.entry, _, _): return refusalOfNavigator(request)
        case _ where request.isPlaylistRequest: return nil   // the rest need a playlist the fake has not
        default: break
        }
        var state = PlaybackState()
        _ = try? state.handle(.itemLoading(PlayerItemReference(serial: 1, name: "b")))
        if status == .readyToPlay { _ = try? state.handle(.itemReady(duration: duration)) }
        do {
            _ = try state.handle(.request(request))
            return nil
        } catch {
            return PlayerRefusal(error.reason)
        }
    }

    /// `playlistCount` files, /m/0, /m/1...
    var playlist: [PlaylistEntry] {
        (0..<playlistCount).map {
            PlaylistEntry(media: .file("/m/\($0)"), item: ItemConfig(source: .file("/m/\($0)"),
                                                                    location: SourceLocation(file: "t", line: $0 + 1, column: 1)),
                          itemIndex: $0)
        }
    }

    private func refusalOfNavigator(_ request: PlayerRequest) -> PlayerRefusal? {
        var navigator = PlaylistNavigator(cursor: PlaylistCursor(entries: playlist, loopMode: .playlist))
        guard case .refused(let line) = navigator.answer(request, position: nil, displayOff: false) else { return nil }
        return PlayerRefusal(line)
    }

    private struct Properties {
        var status = PlayerItemStatus.readyToPlay
        var playlistCount = 2
    }
    private let properties = Mutex(Properties())
    var status: PlayerItemStatus {
        get { properties.withLock { $0.status } }
        set { properties.withLock { $0.status = newValue } }
    }
    var playlistCount: Int {
        get { properties.withLock { $0.playlistCount } }
        set { properties.withLock { $0.playlistCount = newValue } }
    }

    var duration: MediaTime? { MediaTime(value: 60, timescale: 1) }
    var rate: Rational { .one }
    var timeControlStatus: TimeControlStatus { .playing }
    var currentTime: MediaTime { MediaTime(value: 12, timescale: 1) }
    var defaultRate: Rational { .one }
    var volume: Int { 80 }
    var isMuted: Bool { false }
    var currentItemIndex: Int? { 1 }
    var currentItemTitle: String? { "b" }
    var nextItemTitle: String? { "c" }
    var framesPresented: Int { 300 }
    var framesDropped: Int { 2 }
    var isDisplayOn: Bool { false }

    /// Screenshots asked for; one whose path contains "fail" is refused with a reason.
    private let shots = Mutex<[String]>([])
    var screenshots: [String] { shots.withLock { $0 } }
    func saveScreenshot(to path: String) throws {
        shots.withLock { $0.append(path) }
        if path.contains("fail") { throw FakeScreenshotError() }
    }
}

struct FakeScreenshotError: Error, CustomStringConvertible {
    var description: String { "nothing has been shown yet" }
}

/// Records the power modes the socket sets; its status is a fixed object.
final class FakeSchedule: ScheduleControl {
    private let modes = Mutex<[DisplayPowerMode]>([])
    var received: [DisplayPowerMode] { modes.withLock { $0 } }
    func setDisplayPowerMode(_ mode: DisplayPowerMode) { modes.withLock { $0.append(mode) } }
    var scheduleStatus: ControlValue { .object([("display_power_mode", .string("auto"))]) }
}

private func reply(_ line: String, to player: FakePlayer, schedule: FakeSchedule? = nil) -> String {
    let dispatcher = ControlDispatcher(services: Services(player: player, schedule: schedule, baseDirectory: "/media"))
    return dispatcher.reply(to: line, from: ControlConnection(fd: FileDescriptor(rawValue: -1))).json
}

@Test func playbackCommandsSendTheirRequestAndReplyAtOnce() {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["pause"], "request_id": 1}"#, to: player) == #"{"request_id":1,"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["seek", 5, "relative"]}"#, to: player) == #"{"error":"success","data":null}"#)
    _ = reply(#"{"command": ["rate", 1.5]}"#, to: player)
    _ = reply(#"{"command": ["mute", "toggle"]}"#, to: player)
    _ = reply(#"{"command": ["goto", 1]}"#, to: player)
    #expect(player.requests == [.pause, .skip(by: MediaTime(value: 5, timescale: 1)), .setSpeed(Rational(3, 2)),
                                .toggleMute, .goto(index: 1)])
}

@Test func aSeekBeforeTheItemIsReadyIsRefusedToTheClient() {
    let player = FakePlayer()
    player.status = .unknown
    #expect(reply(#"{"command": ["seek", 30], "request_id": 2}"#, to: player)
            == #"{"request_id":2,"error":"seek: the current item is not ready to play (status unknown)"}"#)
    #expect(player.requests == [.seek(to: MediaTime(value: 30, timescale: 1))])   // the engine decided
}

@Test func gotoPastTheEndIsRefusedToTheClient() {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["goto", 2]}"#, to: player)
            == #"{"error":"goto: no item 2: the playlist has 2 items, counted from 0"}"#)
    player.playlistCount = 1
    #expect(reply(#"{"command": ["goto", 1]}"#, to: player)
            == #"{"error":"goto: no item 1: the playlist has 1 item, counted from 0"}"#)
    #expect(player.requests == [.goto(index: 2), .goto(index: 1)])   // the engine decided
}

@Test func loadSendsTheExpandedPlaylist() throws {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["load", "http://example.com/a.mp4"]}"#, to: player)
            == #"{"error":"success","data":{"playlist_count":1,"warnings":[]}}"#)
    guard case .load(let entries) = try #require(player.requests.first) else {
        Issue.record("sent \(player.requests)")
        return
    }
    let media = entries.map { $0.media }
    #expect(media == [.url("http://example.com/a.mp4")])
}

@Test func aLoadOfNothingThatExistsIsRefusedWithoutPromisingToWait() {
    let player = FakePlayer()
    let missing = "/nonexistent-\(UInt32.random(in: 0...UInt32.max))/menu.mp4"
    let answer = reply(#"{"command": ["load", ""#+missing+#""]}"#, to: player)
    #expect(answer == #"{"error":"load: nothing to play: load source 1: file '"#+missing+#"' does not exist"}"#,
            "refused: no 'skipped until it appears' (a playlist's words, for a file it keeps looking for)")
    #expect(player.requests.isEmpty)
}

/// A URL kiosk.conf would refuse (a misspelt scheme, a port that is none) is left out of a load
/// with why: it was loaded and tried again for good as a live source that never answered.
@Test func aLoadLeavesOutAURLThatCannotBeOpened() throws {
    let player = FakePlayer()
    let answer = reply(#"{"command": ["load", "udpp://239.0.0.1:5000", "http://example.com/a.mp4"]}"#, to: player)
    #expect(answer.hasPrefix(#"{"error":"success","data":{"playlist_count":1,"warnings":["load source 1: the URL 'udpp://239.0.0.1:5000' "#
                             + #"cannot be opened: 'udpp' is not a scheme kiosk plays"#), "\(answer)")
    #expect(answer.hasSuffix(#"(did you mean 'udp'?)"]}}"#), "\(answer)")
    guard case .load(let entries) = try #require(player.requests.first) else {
        Issue.record("sent \(player.requests)")
        return
    }
    #expect(entries.map(\.media) == [.url("http://example.com/a.mp4")])
    #expect(reply(#"{"command": ["load", "rtsp://camera:99999/live"]}"#, to: player)
            == #"{"error":"load: nothing to play: load source 1: the URL 'rtsp://camera:99999/live' cannot be opened: its port is "#
            + #"'99999'; expected a number from 1 to 65535 after the host's ':'"}"#)
    #expect(player.requests.count == 1)
}

@Test func getReadsThePlayersProperties() {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["get", "volume"]}"#, to: player) == #"{"error":"success","data":80}"#)
    #expect(reply(#"{"command": ["get", "item"]}"#, to: player) == #"{"error":"success","data":1}"#)
    #expect(reply(#"{"command": ["get", "time"]}"#, to: player) == #"{"error":"success","data":12.0}"#)
    // What `goto N` takes, entry by entry: a client could count the items, never name them.
    #expect(reply(#"{"command": ["get", "playlist"]}"#, to: player)
            == #"{"error":"success","data":[{"index":0,"title":"0","path":"/m/0"},{"index":1,"title":"1","path":"/m/1"}]}"#)
    #expect(player.requests == [])
}

@Test func displayPowerGoesToTheScheduleWhereThereIsOne() {
    let player = FakePlayer(), schedule = FakeSchedule()
    for word in ["off", "on", "auto"] {
        #expect(reply(#"{"command": ["display_power", "\#(word)"]}"#, to: player, schedule: schedule)
                == #"{"error":"success","data":null}"#)
    }
    #expect(reply(#"{"command": ["display_power", false]}"#, to: player, schedule: schedule) == #"{"error":"success","data":null}"#)
    #expect(schedule.received == [.off, .on, .auto, .off])
    #expect(player.requests == [], "the schedule, not the socket, asks the player")
    #expect(reply(#"{"command": ["get", "schedule"]}"#, to: player, schedule: schedule)
            == #"{"error":"success","data":{"display_power_mode":"auto"}}"#)
    #expect(reply(#"{"command": ["get", "display_power"]}"#, to: player, schedule: schedule)
            == #"{"error":"success","data":"off"}"#)
}

@Test func withoutAScheduleDisplayPowerAsksThePlayerAndAutoMeansOn() {
    let player = FakePlayer()
    _ = reply(#"{"command": ["display_power", "off"]}"#, to: player)
    _ = reply(#"{"command": ["display_power", "auto"]}"#, to: player)
    #expect(player.requests == [.setDisplayPower(on: false), .setDisplayPower(on: true)])
    #expect(reply(#"{"command": ["get", "schedule"]}"#, to: player) == #"{"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["display_power", "dim"]}"#, to: player)
            == #"{"error":"display_power: argument must be on, off or auto, got \"dim\""}"#)
    #expect(reply(#"{"command": ["display_power"]}"#, to: player)
            == #"{"error":"display_power: takes 1 argument (on|off|auto), got 0"}"#)
}

@Test func playItemOncePlaysAnEntryOfTheLoopThenGoesBack() {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["play_item_once", 1]}"#, to: player) == #"{"error":"success","data":null}"#)
    #expect(reply(#"{"command": ["play_item_once", "0", "seam"]}"#, to: player) == #"{"error":"success","data":null}"#)
    #expect(player.requests == [.playOnce(.entry(index: 1), when: .now), .playOnce(.entry(index: 0), when: .atSeam)])
    #expect(reply(#"{"command": ["play_item_once", 2]}"#, to: player)
            == #"{"error":"play_item_once: no item 2: the playlist has 2 items, counted from 0"}"#)
    #expect(reply(#"{"command": ["play_item_once", 0, "later"]}"#, to: player)
            == #"{"error":"play_item_once: when must be now or seam, got \"later\""}"#)
    #expect(player.requests.count == 3)   // the third refused by the engine, the fourth by the parser
}

@Test func screenshotSavesWherePathSaysAndRepliesWithItOrWhyNot() {
    let player = FakePlayer()
    #expect(reply(#"{"command": ["screenshot", "/tmp/now.png"], "request_id": 3}"#, to: player)
            == #"{"request_id":3,"error":"success","data":"/tmp/now.png"}"#)
    #expect(reply(#"{"command": ["screenshot", "/tmp/fail.png"]}"#, to: player)
            == #"{"error":"screenshot: nothing has been shown yet"}"#)
    // A relative path is refused before the player is asked: kiosk's directory is not the client's.
    #expect(reply(#"{"command": ["screenshot", "now.png"]}"#, to: player).contains("path must be absolute"))
    #expect(player.screenshots == ["/tmp/now.png", "/tmp/fail.png"])
    #expect(player.requests.isEmpty)
}

/// An event line carries the time the engine emitted it with, not the player's time when the
/// socket's thread formats it: under load that came seconds later (a restart's `item_started`
/// read 5.9 s in the bed's trigger test where the item had begun at 0).
@Test func anEventsTimeIsTheEnginesWhenItHappened() throws {
    let dispatcher = ControlDispatcher(services: Services(player: FakePlayer(), baseDirectory: "/media"))
    let started = PlayerItemReference(serial: 7, name: "red", source: "/media/red.mp4")
    let line = try #require(dispatcher.message(for: .playback(.itemStarted(started), item: 1, time: MediaTime(value: 3, timescale: 2))))
    #expect(line.json.contains(#""time":1.5"#), "\(line.json)")
    #expect(!line.json.contains(#""time":12"#), "the fake player's time now is 12 s")
}

/// A network item's loss and return are one event line each, with the reason and the time away.
@Test func aSourcesLossAndReturnAreEventLines() throws {
    let dispatcher = ControlDispatcher(services: Services(player: FakePlayer(), baseDirectory: "/media"))
    let lost = try #require(dispatcher.message(for: .sourceLost(index: 2, reason: "no data for 2 s")))
    #expect(lost.json == #"{"event":"source_lost","item":2,"time":12.0,"reason":"no data for 2 s"}"#, "\(lost.json)")
    let back = try #require(dispatcher.message(for: .sourceBack(index: 2, afterSeconds: 17.25)))
    #expect(back.json == #"{"event":"source_back","item":2,"time":12.0,"after":17.25}"#, "\(back.json)")
    #expect(ControlCommand.eventNames.contains("source_lost") && ControlCommand.eventNames.contains("source_back"))
}
