import KioskCore
import Synchronization
import Testing
@testable import KioskInput

private func seconds(_ s: Int64) -> MediaTime { MediaTime(value: s, timescale: 1) }
private let playing = PlayerView(isPlaying: true, duration: seconds(100))
private let paused = PlayerView(isPlaying: false, duration: seconds(100))

private func mapper(seekStep: Int64 = 10, configure: (inout GestureSwitches) -> Void = { _ in }) -> InputActionMapper {
    var switches = GestureSwitches()
    configure(&switches)
    return InputActionMapper(settings: InputActionSettings(seekStep: seconds(seekStep), gestures: switches, screenWidth: 1000))
}

struct GestureCase: Sendable, CustomStringConvertible {
    let name: String
    let gesture: Gesture
    let switches: @Sendable (inout GestureSwitches) -> Void
    let expected: [PlayerRequest]
    var description: String { name }
}

let gestureTable: [GestureCase] = [
    GestureCase(name: "tap toggles", gesture: .tap(at: ScreenPoint(x: 10, y: 10)), switches: { _ in },
                expected: [.togglePlayPause]),
    GestureCase(name: "tap switched off", gesture: .tap(at: ScreenPoint(x: 10, y: 10)), switches: { $0.tap = false },
                expected: []),
    GestureCase(name: "swipe left: next item", gesture: .swipe(.left), switches: { _ in }, expected: [.nextItem]),
    GestureCase(name: "swipe right: previous item", gesture: .swipe(.right), switches: { _ in }, expected: [.previousItem]),
    GestureCase(name: "swipe switched off", gesture: .swipe(.left), switches: { $0.swipe = false }, expected: []),
    GestureCase(name: "double tap on the right half skips forward", gesture: .doubleTap(at: ScreenPoint(x: 700, y: 10)),
                switches: { $0.doubleTap = true }, expected: [.skip(by: seconds(10))]),
    GestureCase(name: "double tap on the left half skips back", gesture: .doubleTap(at: ScreenPoint(x: 499, y: 10)),
                switches: { $0.doubleTap = true }, expected: [.skip(by: seconds(-10))]),
    GestureCase(name: "double tap exactly in the middle counts as right", gesture: .doubleTap(at: ScreenPoint(x: 500, y: 10)),
                switches: { $0.doubleTap = true }, expected: [.skip(by: seconds(10))]),
    GestureCase(name: "double tap switched off", gesture: .doubleTap(at: ScreenPoint(x: 700, y: 10)),
                switches: { $0.doubleTap = false }, expected: []),
    GestureCase(name: "scrub switched off", gesture: .scrubBegan(fraction: 0.5), switches: { $0.scrub = false }, expected: []),
    GestureCase(name: "a scrub end without a beginning does nothing", gesture: .scrubEnded(fraction: 0.5),
                switches: { _ in }, expected: []),
]

struct KeyCase: Sendable, CustomStringConvertible {
    let action: KeyAction
    let expected: [PlayerRequest]
    var description: String { action.rawValue }
}

let keyTable: [KeyCase] = [
    KeyCase(action: .toggle, expected: [.togglePlayPause]),
    KeyCase(action: .seekForward, expected: [.skip(by: MediaTime(value: 15, timescale: 2))]),
    KeyCase(action: .seekBackward, expected: [.skip(by: MediaTime(value: -15, timescale: 2))]),
    KeyCase(action: .volumeUp, expected: [.adjustVolume(by: 5)]),
    KeyCase(action: .volumeDown, expected: [.adjustVolume(by: -5)]),
    KeyCase(action: .next, expected: [.nextItem]),
    KeyCase(action: .previous, expected: [.previousItem]),
    KeyCase(action: .mute, expected: [.toggleMute]),
]

@Suite struct InputActionTests {
    @Test(arguments: gestureTable)
    func gestures(_ c: GestureCase) {
        var m = mapper(configure: c.switches)
        #expect(m.requests(for: c.gesture, at: 0, player: playing) == c.expected)
    }

    @Test(arguments: keyTable)
    func keys(_ c: KeyCase) {
        let m = InputActionMapper(settings: InputActionSettings(seekStep: MediaTime(value: 15, timescale: 2), screenWidth: 1000))
        #expect(m.requests(for: c.action) == c.expected)
    }

    @Test func everyKeyActionDoesSomething() {
        let m = mapper()
        for action in KeyAction.allCases { #expect(!m.requests(for: action).isEmpty, "\(action)") }
    }

    @Test func scrubPausesFollowsTheFingerAndResumes() {
        var m = mapper()
        #expect(m.requests(for: .scrubBegan(fraction: 0.25), at: 1.0, player: playing) == [.pause, .seek(to: seconds(25))])
        // The player now reports paused; what counts is that it was playing at the start.
        #expect(m.requests(for: .scrubMoved(fraction: 0.5), at: 1.2, player: paused) == [.seek(to: seconds(50))])
        #expect(m.requests(for: .scrubEnded(fraction: 0.75), at: 1.4, player: paused) == [.seek(to: seconds(75)), .play])
        #expect(m.pendingDeadline == nil)
    }

    @Test func scrubOfAPausedPlayerStaysPaused() {
        var m = mapper()
        #expect(m.requests(for: .scrubBegan(fraction: 0.1), at: 0, player: paused) == [.seek(to: seconds(10))])
        #expect(m.requests(for: .scrubEnded(fraction: 0.2), at: 1, player: paused) == [.seek(to: seconds(20))])
    }

    @Test func scrubSeeksAreRateLimitedAndTheLastPositionCatchesUp() {
        var m = mapper()
        _ = m.requests(for: .scrubBegan(fraction: 0.1), at: 10.00, player: playing)
        // Moves 20 ms apart: only the first seek goes out within 100 ms; the latest is held.
        #expect(m.requests(for: .scrubMoved(fraction: 0.2), at: 10.02, player: paused) == [])
        #expect(m.requests(for: .scrubMoved(fraction: 0.3), at: 10.04, player: paused) == [])
        #expect(m.pendingDeadline == 10.1)
        #expect(m.advance(to: 10.09, player: paused) == [])
        #expect(m.advance(to: 10.10, player: paused) == [.seek(to: seconds(30))])
        #expect(m.pendingDeadline == nil)
        #expect(m.requests(for: .scrubMoved(fraction: 0.4), at: 10.15, player: paused) == [])
        // The end always seeks, whatever the limit says, and nothing is left pending.
        #expect(m.requests(for: .scrubEnded(fraction: 0.45), at: 10.16, player: paused) == [.seek(to: seconds(45)), .play])
        #expect(m.pendingDeadline == nil)
        #expect(m.advance(to: 11, player: paused) == [])
    }

    @Test func tenSeeksASecondAtMostWhileAFingerMovesAt120Hz() {
        var m = mapper()
        var seeks = m.requests(for: .scrubBegan(fraction: 0), at: 0, player: playing).filter { if case .seek = $0 { true } else { false } }.count
        for i in 1...120 {
            let time = Double(i) / 120
            seeks += m.advance(to: time, player: paused).count
            seeks += m.requests(for: .scrubMoved(fraction: time), at: time, player: paused).count
        }
        #expect(seeks >= 9 && seeks <= 11, "\(seeks) seeks in one second")
    }

    @Test func scrubWithoutAKnownDurationDoesNotSeek() {
        var m = mapper()
        let live = PlayerView(isPlaying: true, duration: nil)
        #expect(m.requests(for: .scrubBegan(fraction: 0.5), at: 0, player: live) == [.pause])
        #expect(m.requests(for: .scrubEnded(fraction: 0.5), at: 1, player: live) == [.play])
    }

    @Test func requestsReachThePlayer() {
        let player = RecordingPlayer()
        let all: [PlayerRequest] = [.play, .pause, .togglePlayPause, .seek(to: seconds(3)), .skip(by: seconds(-2)),
                                    .adjustVolume(by: 5), .toggleMute, .nextItem, .previousItem]
        for request in all { player.send(request) }
        #expect(player.requests == all)
        #expect(PlayerView(player) == PlayerView(isPlaying: false, duration: seconds(60)))
    }
}

/// Records the requests sent, as the real player would receive them.
final class RecordingPlayer: PlayerRequestSink {
    private let log = Mutex<[PlayerRequest]>([])
    var requests: [PlayerRequest] { log.withLock { $0 } }

    var duration: MediaTime? { MediaTime(value: 60, timescale: 1) }
    var rate: Rational { Rational(0, 1) }
    func send(_ request: PlayerRequest) { log.withLock { $0.append(request) } }
}
