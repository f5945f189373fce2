import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `PlayerRequest`, the one vocabulary: what the control socket's words become, and what the
/// state machine makes of the requests it did not know before (speed, playlist requests).

private func seconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1) }
private let clip = PlayerItemReference(serial: 1, name: "a.mp4")

private func playingClip() throws -> PlaybackState {
    var state = PlaybackState()
    _ = try state.handle(.request(.play))
    _ = try state.handle(.itemLoading(clip))
    _ = try state.handle(.itemReady(duration: seconds(10)))
    _ = try state.handle(.bufferReady)
    return state
}

private func parsed(_ line: String) throws -> ControlCommand { try ControlRequestParser.parse(line).command }

struct WireCase: Sendable, CustomStringConvertible {
    let line: String
    let request: PlayerRequest
    var description: String { line }
}

/// Every control-socket command that asks something of the player, and the request it is.
@Test(arguments: [
    WireCase(line: #"{"command": ["play"]}"#, request: .play),
    WireCase(line: #"{"command": ["pause"]}"#, request: .pause),
    WireCase(line: #"{"command": ["toggle"]}"#, request: .togglePlayPause),
    WireCase(line: #"{"command": ["seek", 30]}"#, request: .seek(to: seconds(30))),
    WireCase(line: #"{"command": ["seek", 30, "absolute"]}"#, request: .seek(to: seconds(30))),
    WireCase(line: #"{"command": ["seek", -10, "relative"]}"#, request: .skip(by: seconds(-10))),
    WireCase(line: #"{"command": ["next"]}"#, request: .nextItem),
    WireCase(line: #"{"command": ["previous"]}"#, request: .previousItem),
    WireCase(line: #"{"command": ["goto", 4]}"#, request: .goto(index: 4)),
    WireCase(line: #"{"command": ["goto", 4, 12.5]}"#, request: .goto(index: 4, at: MediaTime(seconds: 12.5))),
    WireCase(line: #"{"command": ["goto", 4, "0"]}"#, request: .goto(index: 4)),
    WireCase(line: #"{"command": ["volume", 0]}"#, request: .setVolume(0)),
    WireCase(line: #"{"command": ["mute", "on"]}"#, request: .setMuted(true)),
    WireCase(line: #"{"command": ["mute", "no"]}"#, request: .setMuted(false)),
    WireCase(line: #"{"command": ["mute", "toggle"]}"#, request: .toggleMute),
    WireCase(line: #"{"command": ["rate", 2]}"#, request: .setSpeed(Rational(2, 1))),
])
func controlWordsBecomePlayerRequests(_ wire: WireCase) throws {
    #expect(try parsed(wire.line) == .request(wire.request))
}

@Test func theSocketsOwnCommandsAreNotPlayerRequests() throws {
    #expect(try parsed(#"{"command": ["load", "a.mp4"]}"#) == .load(sources: ["a.mp4"]))
    #expect(try parsed(#"{"command": ["get", "volume"]}"#) == .get(.volume))
    #expect(try parsed(#"{"command": ["help"]}"#) == .commands)
}

@Test func everyCommandInTheUsageListIsParsed() {
    // Sample arguments for the commands that need some: the usage list and the parser agree.
    let samples: [String: String] = ["seek": "1", "goto": "0", "load": #""a.mp4""#, "volume": "5", "rate": "1",
                                     "get": #""time""#, "observe": #""time""#, "unobserve": #""time""#,
                                     "play_item_once": "0", "trigger": #""welcome""#, "layer": #""hide", "logo""#, "display_power": #""off""#, "screenshot": #""/tmp/x.png""#,
                                     "override": #""evacuate""#, "override_text": #""notice", "Closed at 5""#, "cap": #""<alert/>""#]
    for (name, _) in ControlCommand.usage {
        let arguments = samples[name].map { ", " + $0 } ?? ""
        let line = #"{"command": [""# + name + #"""# + arguments + "]}"
        do { _ = try parsed(line) } catch { Issue.record("\(line): \(error)") }
    }
}

@Test func speedChangesTheRateOnlyWhilePlaying() throws {
    var state = try playingClip()
    #expect(try state.handle(.request(.setSpeed(Rational(3, 2)))) == [
        .rateChanged(Rational(3, 2)), .defaultRateChanged(Rational(3, 2)),
    ])
    #expect(state.clockRate == Rational(3, 2))
    _ = try state.handle(.request(.pause))
    #expect(try state.handle(.request(.setSpeed(Rational(1, 2)))) == [.defaultRateChanged(Rational(1, 2))],
            "a speed never unpauses")
    #expect(state.timeControlStatus == .paused)
    _ = try state.handle(.request(.play))
    #expect(state.rate == Rational(1, 2), "play resumes at the speed")
}

@Test func speedOutOfRangeChangesNothing() throws {
    var state = try playingClip()
    #expect(throws: PlaybackError.defaultRateOutOfRange(Rational(0, 1))) {
        try state.handle(.request(.setSpeed(Rational(0, 1))))
    }
    #expect(throws: PlaybackError.defaultRateOutOfRange(Rational(5, 1))) {
        try state.handle(.request(.setSpeed(Rational(5, 1))))
    }
    #expect(state.rate == .one && state.defaultRate == .one)
}

/// The speed is what the socket's `rate` did in two steps (default rate, then the rate if
/// playing); one request gives the same state.
@Test(arguments: [true, false])
func speedEndsWhereTheTwoStepsDid(playing: Bool) throws {
    var start = try playingClip()
    if !playing { _ = try start.handle(.request(.pause)) }
    var oneStep = start, twoSteps = start
    _ = try oneStep.handle(.request(.setSpeed(Rational(5, 4))))
    _ = try twoSteps.handle(.request(.setDefaultRate(Rational(5, 4))))
    if twoSteps.rate.numerator != 0 { _ = try twoSteps.handle(.request(.setRate(Rational(5, 4)))) }
    #expect(oneStep == twoSteps)
}

@Test func playlistRequestsLeaveTheStateToTheEngine() throws {
    let state = try playingClip()
    let entry = PlaylistEntry(media: .file("/media/b.mp4"),
                              item: ItemConfig(source: .file("/media/b.mp4"),
                                               location: SourceLocation(file: "test", line: 1, column: 1)),
                              itemIndex: 0)
    for request: PlayerRequest in [.nextItem, .previousItem, .goto(index: 3), .load([entry]),
                                   .switchPlaylist([entry], when: .atSeam), .playOnce(.entry(index: 0), when: .now),
                                   .playOnce(.entries([entry]), when: .atSeam), .setDisplayPower(on: false)] {
        var copy = state
        #expect(try copy.handle(.request(request)) == [], "\(request)")
        #expect(copy == state, "\(request)")
    }
}

@Test func playlistRequestsAreRoutedToTheCursor() {
    let playlist: [PlayerRequest] = [.nextItem, .previousItem, .goto(index: 0), .load([]),
                                     .switchPlaylist([], when: .now), .playOnce(.entry(index: 1), when: .atSeam),
                                     .setDisplayPower(on: true)]
    let playback: [PlayerRequest] = [.play, .pause, .togglePlayPause, .setRate(.one), .setDefaultRate(.one),
                                     .setSpeed(.one), .setVolume(50), .adjustVolume(by: 5), .setMuted(true),
                                     .toggleMute, .seek(to: .zero), .skip(by: .zero)]
    #expect(playlist.filter { !$0.isPlaylistRequest } == [])
    #expect(playback.filter { $0.isPlaylistRequest } == [])
}

@Test func aSkipCountsFromThePositionTheEngineGives() throws {
    var state = try playingClip()
    #expect(try state.handle(.request(.skip(by: seconds(2)), position: seconds(5))).first == .seek(to: seconds(7)))
    _ = try state.handle(.bufferReady)
    #expect(try state.handle(.request(.skip(by: seconds(-20)), position: seconds(7))).first == .seek(to: .zero))
}
