import Testing
@testable import KioskCore

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

    @Test func aStillLastsItsDurationFromItsStart() {
        #expect(SeamTiming.handOver(length: Self.ms(5_000), lastPresented: Self.ms(2_000), frameDuration: Self.ms(40),
                                    incomingFrameDuration: nil, stillStart: Self.ms(1_000)) == Self.ms(6_000))
    }

    @Test func nothingShownYetEndsAtTheLength() {
        #expect(SeamTiming.handOver(length: Self.ms(3_000), lastPresented: nil, frameDuration: Self.ms(40),
                                    incomingFrameDuration: Self.ms(20)) == Self.ms(3_000))
    }
}
