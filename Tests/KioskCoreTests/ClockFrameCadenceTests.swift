import Testing
@testable import KioskBasics
@testable import KioskPolicy

private func millis(_ ms: Int64) -> MediaTime { MediaTime(value: ms, timescale: 1000) }

/// The frame spacing learnt from the frames put up (FrameCadence): two frames in a row of one
/// run only. CI's starved vkms guest showed 0.72 and 0.84 of a 25 fps clip with 0.76 and 0.80
/// dropped between, took 0.12 s for a frame, waited out a stall at 0.96 s (0.84 + 0.12) and a
/// pause there named 0.96 while 0.88 came next, went up and took the paused clock back to it.
@Test func theCadenceIsTheGapBetweenTwoFramesInARow() {
    #expect(FrameCadence.observed(previous: millis(800), current: millis(840), lastDropped: millis(760), continuesRun: true) == millis(40))
    #expect(FrameCadence.observed(previous: millis(800), current: millis(840), lastDropped: nil, continuesRun: true) == millis(40))
}

@Test func aGapOverADroppedFrameIsNotTheCadence() {
    #expect(FrameCadence.observed(previous: millis(720), current: millis(840), lastDropped: millis(800), continuesRun: true) == nil)
    #expect(FrameCadence.observed(previous: millis(720), current: millis(840), lastDropped: millis(760), continuesRun: true) == nil)
}

@Test func theFirstFrameAfterASeekOrAStallOrTheSameFrameAgainIsNotTheCadence() {
    // Sought from 1.0 s to 10 s: the gap is the seek's, not a frame's.
    #expect(FrameCadence.observed(previous: millis(1000), current: millis(10_000), lastDropped: nil, continuesRun: false) == nil)
    #expect(FrameCadence.observed(previous: nil, current: millis(0), lastDropped: nil, continuesRun: true) == nil)
    // The frame on screen put up again (an overlay's redraw) or a seek back.
    #expect(FrameCadence.observed(previous: millis(840), current: millis(840), lastDropped: nil, continuesRun: true) == nil)
    #expect(FrameCadence.observed(previous: millis(840), current: millis(400), lastDropped: nil, continuesRun: true) == nil)
}
