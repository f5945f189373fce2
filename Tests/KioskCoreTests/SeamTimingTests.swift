import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Suite struct SeamTimingTests {
    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    @Test func aVideoEndsOneFrameAfterItsLastFrame() {
        #expect(SeamTiming.handOver(length: Self.ms(10_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil) == Self.ms(10_000))
    }

    /// 25 fps into 30 fps: the last frame is held 33 ms, not 40.
    @Test func theLastFrameIsHeldNoLongerThanAnIncomingFrame() {
        let incoming = MediaTime(value: 1, timescale: 30)
        #expect(SeamTiming.handOver(length: Self.ms(10_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: incoming) == Self.ms(9_960) + incoming)
        // A slower incoming clip does not lengthen it.
        #expect(SeamTiming.handOver(length: Self.ms(10_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: Self.ms(100)) == Self.ms(10_000))
    }

    /// A stream that says it is longer than its frames: the last frame is not held for the rest.
    @Test func aLongerDeclaredLengthIsCutAtOneFrame() {
        #expect(SeamTiming.handOver(length: Self.ms(12_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil) == Self.ms(10_000))
        // Shorter than its last frame (a bad header): the frame's time wins.
        #expect(SeamTiming.handOver(length: Self.ms(5_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil) == Self.ms(9_960))
    }

    /// Sound past the last frame by more than `soundTail` is the item's: the frame holds until
    /// it ends (a song under its cover, a slideshow shorter than its music). A codec's padding,
    /// or a length with no sound played, keeps the seam a frame after the picture.
    @Test func soundThatGoesOnHoldsTheLastFrameUntilItEnds() {
        #expect(SeamTiming.handOver(length: Self.ms(16_000), lastPresented: Self.ms(1_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(16_000)) == Self.ms(16_000))
        #expect(SeamTiming.handOver(length: Self.ms(60_000), lastPresented: .zero, frameDuration: Self.ms(40),
                                    incomingFrameDuration: Self.ms(33), soundEnd: Self.ms(60_000)) == Self.ms(60_000))
        // A picture packet of a bogus duration (a 20 s last frame) carries `length`, not the
        // sound: the sound's own end is the seam; a trim's `end` (a shorter length) cuts it.
        #expect(SeamTiming.handOver(length: Self.ms(30_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(10_020)) == Self.ms(10_000))
        #expect(SeamTiming.handOver(length: Self.ms(12_000), lastPresented: Self.ms(1_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(16_000)) == Self.ms(12_000))
        // Within the tail's bar: the picture's seam.
        #expect(SeamTiming.handOver(length: Self.ms(10_040), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(10_040)) == Self.ms(10_000))
        // The bar is the seam (10 s) plus `soundTail`: 10.25 s is the seam's, 10.26 s the sound's.
        #expect(SeamTiming.handOver(length: Self.ms(10_250), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(10_250)) == Self.ms(10_000))
        #expect(SeamTiming.handOver(length: Self.ms(10_260), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(10_260)) == Self.ms(10_260))
        // No sound played: the longer length is cut at one frame as before.
        #expect(SeamTiming.handOver(length: Self.ms(16_000), lastPresented: Self.ms(1_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil) == Self.ms(2_000))
    }

    /// A last frame the file holds (a GIF's 2.9 s logo, its packet ending at 7.1 s) is held its
    /// own time whatever the incoming clip's rate; it was cut to one incoming frame (40 ms).
    @Test func aLastFrameTheFileHoldsIsHeldItsOwnTime() {
        let tenSeconds = Self.ms(10_000)
        #expect(SeamTiming.handOver(length: Self.ms(7_100), lastPresented: Self.ms(4_200), frameDuration: Self.ms(2_900),
                                    incomingFrameDuration: Self.ms(40), pictureEnd: Self.ms(7_100),
                                    longestHold: tenSeconds) == Self.ms(7_100))
        // 100 ms frames, then a 600 ms hold: its own, not the last step's or the incoming frame's.
        #expect(SeamTiming.handOver(length: Self.ms(2_900), lastPresented: Self.ms(2_300), frameDuration: Self.ms(100),
                                    incomingFrameDuration: Self.ms(33), pictureEnd: Self.ms(2_900),
                                    longestHold: tenSeconds) == Self.ms(2_900))
        // A trim's `end` (a shorter length) still cuts it.
        #expect(SeamTiming.handOver(length: Self.ms(5_000), lastPresented: Self.ms(4_200), frameDuration: Self.ms(2_900),
                                    incomingFrameDuration: Self.ms(40), pictureEnd: Self.ms(7_100),
                                    longestHold: tenSeconds) == Self.ms(5_000))
    }

    /// A video's own last frame (40 ms at 25 fps, 100 ms at 10 fps) is evened to the incoming
    /// clip's as before; a hold longer than the item believes between frames is a damaged
    /// duration; a played sound that ends sooner ends the item.
    @Test func aLastFrameOfAVideosOwnTimeOrADamagedOneIsNotHeld() {
        let incoming = MediaTime(value: 1, timescale: 30)
        #expect(SeamTiming.handOver(length: Self.ms(10_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: incoming, pictureEnd: Self.ms(10_000),
                                    longestHold: Self.ms(10_000)) == Self.ms(9_960) + incoming)
        #expect(SeamTiming.handOver(length: Self.ms(3_000), lastPresented: Self.ms(2_900), frameDuration: Self.ms(100),
                                    incomingFrameDuration: Self.ms(40), pictureEnd: Self.ms(3_000),
                                    longestHold: Self.ms(10_000)) == Self.ms(2_940))
        // 20 s past a 10 s bar (or, in a stream whose gaps are not kept, past four frames).
        #expect(SeamTiming.handOver(length: Self.ms(30_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, pictureEnd: Self.ms(30_000),
                                    longestHold: Self.ms(10_000)) == Self.ms(10_000))
        #expect(SeamTiming.handOver(length: Self.ms(10_500), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, pictureEnd: Self.ms(10_500),
                                    longestHold: Self.ms(160)) == Self.ms(10_000))
        // A 5 s last frame over sound that ends at 10.02 s: the sound's end.
        #expect(SeamTiming.handOver(length: Self.ms(14_960), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, soundEnd: Self.ms(10_020), pictureEnd: Self.ms(14_960),
                                    longestHold: Self.ms(10_000)) == Self.ms(10_020))
        // Unknown (no packet durations): as before.
        #expect(SeamTiming.handOver(length: Self.ms(10_000), lastPresented: Self.ms(9_960), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, pictureEnd: Self.ms(9_960),
                                    longestHold: Self.ms(10_000)) == Self.ms(10_000))
    }

    @Test func aStillLastsItsDurationFromItsStart() {
        #expect(SeamTiming.handOver(length: Self.ms(5_000), lastPresented: Self.ms(2_000), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, stillStart: Self.ms(1_000)) == Self.ms(6_000))
    }

    @Test func nothingShownYetEndsAtTheLength() {
        #expect(SeamTiming.handOver(length: Self.ms(3_000), lastPresented: nil, frameDuration: Self.ms(40),
                                    incomingFrameDuration: Self.ms(20)) == Self.ms(3_000))
    }

    // MARK: Waiting for the seam, preparing the next item

    static let refresh = MediaTime(value: 1, timescale: 60)

    @Test func aRunningClockWaitsUntilHalfARefreshBeforeTheSeam() {
        let clock = PlaybackClock(mediaTime: Self.ms(9_000), hostTime: Self.ms(100_000), rate: .one)
        // The seam at media 10 s is host 101 s.
        let wake = Self.ms(101_000) - Self.refresh * Rational(1, 2)
        #expect(SeamTiming.wait(before: Self.ms(10_000), clock: clock, now: Self.ms(100_000), refreshInterval: Self.refresh)
                == .until(wake))
        // Within half a refresh, or past it: no wait.
        #expect(SeamTiming.wait(before: Self.ms(10_000), clock: clock, now: Self.ms(100_995), refreshInterval: Self.refresh) == .none)
        #expect(SeamTiming.wait(before: Self.ms(10_000), clock: clock, now: Self.ms(102_000), refreshInterval: Self.refresh) == .none)
    }

    @Test func aStandingClockIsWaitedFor() {
        let paused = PlaybackClock(mediaTime: Self.ms(9_000), hostTime: Self.ms(100_000))
        #expect(SeamTiming.wait(before: Self.ms(10_000), clock: paused, now: Self.ms(100_000), refreshInterval: Self.refresh) == .forClock)
    }

    @Test func theNextItemIsPreparedWithinTheLeadOfTheEnd() {
        let lead = Self.ms(2_000)
        // 10 s item trimmed from 1 s: it ends at file time 11 s.
        #expect(!SeamTiming.isTimeToPrepareNext(duration: Self.ms(10_000), start: Self.ms(1_000), position: Self.ms(8_900),
                                                lead: lead, isOpen: true, isStill: false))
        #expect(SeamTiming.isTimeToPrepareNext(duration: Self.ms(10_000), start: Self.ms(1_000), position: Self.ms(9_000),
                                               lead: lead, isOpen: true, isStill: false))
        // Unknown length: a stream says when it ends; a still (once open) is prepared at once.
        #expect(!SeamTiming.isTimeToPrepareNext(duration: nil, start: .zero, position: .zero, lead: lead, isOpen: true, isStill: false))
        #expect(!SeamTiming.isTimeToPrepareNext(duration: nil, start: .zero, position: .zero, lead: lead, isOpen: false, isStill: true))
        #expect(SeamTiming.isTimeToPrepareNext(duration: nil, start: .zero, position: .zero, lead: lead, isOpen: true, isStill: true))
    }
}
