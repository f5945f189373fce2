import KioskCore
import Testing
@testable import KioskPlayer

/// Where an entry resumed at a position (a `goto` with seconds, an insert giving the loop back,
/// a restart's resume) opens in its file: from its trim's start, never past its trim's end.
@Suite struct ResumeOpeningTests {
    static func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    @Test func aPositionCountsFromTheTrimsStartAndStopsAtItsEnd() {
        var plan = ItemPlan(source: "a.mp4")
        #expect(ItemSequencer.opening(at: Self.seconds(90), of: plan) == Self.seconds(90))   // untrimmed: the seek clamps
        plan.start = Self.seconds(1)
        plan.end = Self.seconds(2.5)
        #expect(ItemSequencer.opening(at: Self.seconds(0.5), of: plan) == Self.seconds(1.5))
        #expect(ItemSequencer.opening(at: Self.seconds(5), of: plan) == Self.seconds(2.5))
        plan.end = nil
        #expect(ItemSequencer.opening(at: Self.seconds(5), of: plan) == Self.seconds(6))
    }
}
