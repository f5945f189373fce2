import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let clipA = PlayerItemReference(serial: 1, name: "/media/a.mp4")
private let clipB = PlayerItemReference(serial: 2, name: "/media/b.mp4")
private let tenSeconds = MediaTime(value: 10, timescale: 1)
private func seconds(_ s: Int64) -> MediaTime { MediaTime(value: s, timescale: 1) }
private let zeroRate = Rational(0, 1)

/// A state with `clipA` open, primed and playing at rate 1.
private func playingClipA() throws -> PlaybackState {
    var state = PlaybackState()
    _ = try state.handle(.request(.play))
    _ = try state.handle(.itemLoading(clipA))
    _ = try state.handle(.itemReady(duration: tenSeconds))
    _ = try state.handle(.bufferReady)
    return state
}

@Test func startsPausedWithNoItem() {
    let state = PlaybackState()
    #expect(state.status == .unknown)
    #expect(state.timeControlStatus == .paused)
    #expect(state.reasonForWaitingToPlay == nil)
    #expect(state.rate == zeroRate)
    #expect(state.defaultRate == Rational.one)
    #expect(state.volume == 100 && !state.isMuted)
    #expect(state.clockRate == zeroRate)
}

@Test func itemLifecycleReportsEachStepOnce() throws {
    var state = PlaybackState()
    #expect(try state.handle(.request(.play)) == [
        .rateChanged(.one), .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .noItemToPlay),
    ])
    #expect(try state.handle(.itemLoading(clipA)) == [
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .openingItem),
    ])
    #expect(try state.handle(.itemReady(duration: tenSeconds)) == [
        .statusChanged(.readyToPlay),
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .buffering),
    ])
    #expect(state.clockRate == zeroRate, "the clock must not run before a frame is there")
    #expect(try state.handle(.bufferReady) == [
        .timeControlStatusChanged(.playing, reasonForWaiting: nil), .itemStarted(clipA),
    ])
    #expect(state.clockRate == .one)
    #expect(state.duration == tenSeconds)
    // A stall and its recovery; the item is not announced again.
    #expect(try state.handle(.bufferEmpty) == [
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .buffering),
    ])
    #expect(try state.handle(.bufferReady) == [.timeControlStatusChanged(.playing, reasonForWaiting: nil)])
    #expect(try state.handle(.endReached) == [
        .itemEnded(clipA), .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .noItemToPlay),
    ])
    #expect(try state.handle(.endReached) == [], "an item ends once")
    #expect(try state.handle(.queueEmpty) == [.statusChanged(.unknown)])
    #expect(state.currentItem == nil)
}

@Test func pauseAndResumeDoNotRepeatItemStarted() throws {
    var state = try playingClipA()
    #expect(try state.handle(.request(.pause)) == [.rateChanged(zeroRate), .timeControlStatusChanged(.paused, reasonForWaiting: nil)])
    #expect(state.clockRate == zeroRate)
    #expect(try state.handle(.request(.pause)) == [], "pausing twice changes nothing")
    #expect(try state.handle(.request(.play)) == [.rateChanged(.one), .timeControlStatusChanged(.playing, reasonForWaiting: nil)])
}

@Test func toggleFollowsTheRate() throws {
    var state = try playingClipA()
    _ = try state.handle(.request(.togglePlayPause))
    #expect(state.timeControlStatus == .paused)
    _ = try state.handle(.request(.togglePlayPause))
    #expect(state.timeControlStatus == .playing)
    #expect(state.rate == .one)
}

@Test func aSeamGoesFromPlayingToPlayingWithoutWaiting() throws {
    var state = try playingClipA()
    #expect(try state.handle(.advanced(to: clipB, duration: seconds(5))) == [
        .itemEnded(clipA), .itemStarted(clipB),
    ])
    #expect(state.currentItem == clipB && state.duration == seconds(5))
    // Looping the same file is a new reference: it starts again.
    let again = PlayerItemReference(serial: 3, name: clipB.name)
    _ = try state.handle(.endReached)
    #expect(try state.handle(.advanced(to: again, duration: seconds(5))) == [
        .timeControlStatusChanged(.playing, reasonForWaiting: nil), .itemStarted(again),
    ], "after endReached the end is not reported twice")
}

@Test func failuresOfTheCurrentAndOfAQueuedItem() throws {
    var state = try playingClipA()
    // clipB failed while being prepared ahead: reported, playback of clipA goes on.
    #expect(try state.handle(.itemFailed(clipB, reason: "b.mp4: no video stream")) == [
        .itemFailed(clipB, reason: "b.mp4: no video stream"),
    ])
    #expect(state.timeControlStatus == .playing)
    // The current item fails (a decode error mid-file).
    #expect(try state.handle(.itemFailed(clipA, reason: "a.mp4: truncated")) == [
        .itemFailed(clipA, reason: "a.mp4: truncated"),
        .statusChanged(.failed(reason: "a.mp4: truncated")),
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .noItemToPlay),
    ])
    #expect(throws: PlaybackError.notSeekable(.failed(reason: "a.mp4: truncated"))) {
        try state.handle(.request(.seek(to: seconds(1))))
    }
    // The next item loads: status goes back to unknown.
    #expect(try state.handle(.itemLoading(clipB)) == [
        .statusChanged(.unknown),
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .openingItem),
    ])
}

@Test func lateReportsForAnItemAlreadyGoneAreIgnored() throws {
    var state = PlaybackState()
    #expect(try state.handle(.itemReady(duration: tenSeconds)) == [])
    #expect(try state.handle(.bufferReady) == [])
    #expect(state.status == .unknown)
}

struct RateCase: Sendable, CustomStringConvertible {
    let requested: Rational
    let accepted: Bool
    var description: String { "rate \(requested)" }
}

@Test(arguments: [
    RateCase(requested: Rational(1, 4), accepted: true),
    RateCase(requested: Rational(1, 2), accepted: true),
    RateCase(requested: Rational(2, 1), accepted: true),
    RateCase(requested: Rational(4, 1), accepted: true),
    RateCase(requested: Rational(1, 5), accepted: false),
    RateCase(requested: Rational(401, 100), accepted: false),
    RateCase(requested: Rational(-1, 1), accepted: false),
    RateCase(requested: Rational(1, 0), accepted: false),
])
func ratesOutsideTheRangeAreRejected(_ rateCase: RateCase) throws {
    var state = try playingClipA()
    if rateCase.accepted {
        #expect(try state.handle(.request(.setRate(rateCase.requested))) == [.rateChanged(rateCase.requested)])
        #expect(state.clockRate == rateCase.requested)
    } else {
        #expect(throws: PlaybackError.rateOutOfRange(rateCase.requested)) {
            try state.handle(.request(.setRate(rateCase.requested)))
        }
        #expect(state.rate == .one, "a rejected rate changes nothing")
    }
}

@Test func rateZeroPausesAndPlayUsesTheDefaultRate() throws {
    var state = try playingClipA()
    _ = try state.handle(.request(.setRate(Rational(2, 1))))
    #expect(try state.handle(.request(.setRate(zeroRate))) == [
        .rateChanged(zeroRate), .timeControlStatusChanged(.paused, reasonForWaiting: nil),
    ])
    // As AVPlayer: play() plays at defaultRate, not at the rate before the pause.
    _ = try state.handle(.request(.play))
    #expect(state.rate == .one)
    #expect(try state.handle(.request(.setDefaultRate(Rational(1, 2)))) == [.defaultRateChanged(Rational(1, 2))])
    #expect(state.rate == .one, "setting the default rate does not change the current rate")
    _ = try state.handle(.request(.pause))
    _ = try state.handle(.request(.togglePlayPause))
    #expect(state.rate == Rational(1, 2))
    #expect(throws: PlaybackError.defaultRateOutOfRange(zeroRate)) { try state.handle(.request(.setDefaultRate(zeroRate))) }
}

@Test func rateTextParsesToExactFractions() throws {
    #expect(try PlaybackRate.parse("1.25") == Rational(5, 4))
    #expect(try PlaybackRate.parse(" 0.5 ") == Rational(1, 2))
    #expect(try PlaybackRate.parse("0") == zeroRate)
    #expect(throws: PlaybackError.invalidRateText("fast")) { try PlaybackRate.parse("fast") }
    #expect(throws: PlaybackError.invalidRateText("nan")) { try PlaybackRate.parse("nan") }
    let message = PlaybackError.rateOutOfRange(Rational(5, 1)).description
    #expect(message.contains("5.0") && message.contains("0.25...4.0"))
}

@Test func volumeAndMuteAreIndependent() throws {
    var state = PlaybackState()
    #expect(try state.handle(.request(.setVolume(40))) == [.volumeChanged(40)])
    #expect(try state.handle(.request(.toggleMute)) == [.mutedChanged(true)])
    #expect(state.volume == 40, "muting keeps the volume")
    #expect(try state.handle(.request(.adjustVolume(by: 5))) == [.volumeChanged(45)])
    #expect(state.isMuted, "changing the volume does not unmute")
    #expect(try state.handle(.request(.setMuted(false))) == [.mutedChanged(false)])
    #expect(try state.handle(.request(.setMuted(false))) == [])
    #expect(try state.handle(.request(.adjustVolume(by: 500))) == [.volumeChanged(100)])
    #expect(try state.handle(.request(.adjustVolume(by: 5))) == [], "held volume-up at 100 is no error")
    #expect(try state.handle(.request(.adjustVolume(by: -300))) == [.volumeChanged(0)])
    #expect(throws: PlaybackError.volumeOutOfRange(101)) { try state.handle(.request(.setVolume(101))) }
    #expect(throws: PlaybackError.volumeOutOfRange(-1)) { try state.handle(.request(.setVolume(-1))) }
    #expect(state.volume == 0)
    #expect(throws: PlaybackError.volumeOutOfRange(150)) { try PlaybackState(volume: 150) }
}

struct SeekCase: Sendable, CustomStringConvertible {
    let duration: MediaTime?
    let input: PlaybackInput
    let target: MediaTime
    var description: String { "\(input) in \(duration.map(\.description) ?? "live")" }
}

@Test(arguments: [
    SeekCase(duration: tenSeconds, input: .request(.seek(to: seconds(4))), target: seconds(4)),
    SeekCase(duration: tenSeconds, input: .request(.seek(to: seconds(-3))), target: .zero),
    SeekCase(duration: tenSeconds, input: .request(.seek(to: seconds(30))), target: tenSeconds),
    SeekCase(duration: tenSeconds, input: .request(.skip(by: seconds(5)), position: seconds(7)), target: tenSeconds),
    SeekCase(duration: tenSeconds, input: .request(.skip(by: seconds(-5)), position: seconds(3)), target: .zero),
    SeekCase(duration: tenSeconds, input: .request(.skip(by: seconds(-5)), position: MediaTime(value: 15, timescale: 2)),
             target: MediaTime(value: 5, timescale: 2)),
    // A live stream: no end to clamp to, only the start.
    SeekCase(duration: nil, input: .request(.skip(by: seconds(3600)), position: seconds(7)), target: seconds(3607)),
    SeekCase(duration: nil, input: .request(.skip(by: seconds(-10)), position: seconds(7)), target: .zero),
])
func seeksClampToTheItem(_ seekCase: SeekCase) throws {
    var state = PlaybackState()
    _ = try state.handle(.request(.play))
    _ = try state.handle(.itemLoading(clipA))
    _ = try state.handle(.itemReady(duration: seekCase.duration))
    _ = try state.handle(.bufferReady)
    let events = try state.handle(seekCase.input)
    #expect(events == [
        .seek(to: seekCase.target),
        .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .buffering),
    ])
    #expect(try state.handle(.bufferReady) == [.timeControlStatusChanged(.playing, reasonForWaiting: nil)])
}

@Test func seekingNeedsAReadyItem() throws {
    var state = PlaybackState()
    #expect(throws: PlaybackError.noItemToSeek) { try state.handle(.request(.seek(to: .zero))) }
    _ = try state.handle(.itemLoading(clipA))
    #expect(throws: PlaybackError.notSeekable(.unknown)) { try state.handle(.request(.skip(by: seconds(5)), position: .zero)) }
}

@Test func seekingBackAfterTheEndPlaysAgain() throws {
    var state = try playingClipA()
    _ = try state.handle(.endReached)
    #expect(state.reasonForWaitingToPlay == .noItemToPlay)
    _ = try state.handle(.request(.seek(to: .zero)))
    #expect(state.reasonForWaitingToPlay == .buffering)
    _ = try state.handle(.bufferReady)
    #expect(state.timeControlStatus == .playing)
    #expect(try state.handle(.endReached) == [
        .itemEnded(clipA), .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate, reasonForWaiting: .noItemToPlay),
    ])
}

@Test func aPausedSeekStaysPaused() throws {
    var state = try playingClipA()
    _ = try state.handle(.request(.pause))
    #expect(try state.handle(.request(.seek(to: seconds(2)))) == [.seek(to: seconds(2))])
    #expect(try state.handle(.bufferReady) == [])
    #expect(state.timeControlStatus == .paused)
}
