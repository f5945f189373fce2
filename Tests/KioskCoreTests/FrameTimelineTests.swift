import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Synthetic timestamp sequences through `FrameTimeline`: milliseconds in, milliseconds out.
@Suite struct FrameTimelineTests {
    private func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    /// Every frame's output time (the frame is its index), after the end of the stream.
    private func run(_ stamps: [Int64?], tuning: FrameTimelineTuning = .strict,
                     nominal: Int64 = 40) -> (times: [Int64], timeline: FrameTimeline<Int>) {
        var timeline = FrameTimeline<Int>(nominalCadence: ms(nominal), tuning: tuning)
        var out: [(Int, MediaTime)] = []
        for (index, stamp) in stamps.enumerated() {
            if let (frame, time, _) = timeline.push(index, pts: stamp.map(ms)) { out.append((frame, time)) }
        }
        if let (frame, time, _) = timeline.finish() { out.append((frame, time)) }
        #expect(out.map(\.0) == Array(stamps.indices), "every frame comes out once, in order")
        return (out.map { $0.1.ticks(in: Rational(1, 1000)) }, timeline)
    }

    private func steady(from start: Int64, count: Int, step: Int64 = 40) -> [Int64?] {
        (0..<count).map { start + Int64($0) * step }
    }

    @Test func cleanStampsAreKept() {
        let stamps = steady(from: 0, count: 20)
        let (times, timeline) = run(stamps)
        #expect(times == stamps.compactMap { $0 })
        #expect(timeline.corrections == 0)
    }

    @Test func aLoneOutlierFarAheadGoesBetweenItsNeighbours() {
        // The reported MPEG-PS: a frame stamped thousands of seconds ahead.
        var stamps = steady(from: 0, count: 20)
        stamps[10] = 2_983_626
        let (times, timeline) = run(stamps)
        #expect(times[10] == 400)
        #expect(times == steady(from: 0, count: 20).compactMap { $0 })
        #expect(timeline.corrections == 1)
    }

    @Test func aLoneOutlierBehindIsPlacedInOrder() {
        var stamps = steady(from: 1_000, count: 12)
        stamps[6] = 3
        let (times, _) = run(stamps)
        #expect(times[6] == 1_240)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func missingStampsAreFilledInFromTheCadence() {
        var stamps = steady(from: 0, count: 10)
        stamps[4] = nil
        stamps[5] = nil
        let (times, _) = run(stamps)
        #expect(times == steady(from: 0, count: 10).compactMap { $0 })
    }

    @Test func aBackwardJumpThatStaysIsTakenOut() {
        // A capture joined to an older one: the second timeline goes on after the first.
        let stamps = steady(from: 5_000, count: 10) + steady(from: 0, count: 10)
        let (times, _) = run(stamps)
        #expect(times == steady(from: 5_000, count: 20).compactMap { $0 })
    }

    @Test func aForwardJumpIsTakenOutWhenStrict() {
        // A picture alone in a format whose timestamps jump: the next frame comes one cadence on.
        let stamps = steady(from: 0, count: 10) + steady(from: 3_000, count: 10)
        let (times, timeline) = run(stamps)
        #expect(times == steady(from: 0, count: 20).compactMap { $0 })
        #expect(timeline.offset == ms(400 - 3_000))
    }

    @Test func aRealGapIsKeptWhereGapsAreBelieved() {
        let stamps = steady(from: 0, count: 10) + steady(from: 3_000, count: 10)
        let (times, _) = run(stamps, tuning: .keepingGaps)
        #expect(times == stamps.compactMap { $0 })
    }

    @Test func unevenStepsAtTheEndOfAGIFKeepTheirOwnTimes() {
        // A GIF's delays: 70 ms frames, then a 300 ms hold and a 330 ms one, the file's last.
        let stamps: [Int64?] = steady(from: 0, count: 12, step: 70) + [770 + 300 - 70, 770 + 300 - 70 + 330].map { $0 }
        let (times, timeline) = run(stamps, tuning: .keepingGaps, nominal: 70)
        #expect(times == stamps.compactMap { $0 })
        #expect(timeline.corrections == 0)
        // Variable delays all through (30 to 330 ms), forward: every one kept.
        let delays: [Int64] = [30, 330, 70, 300, 40, 250, 30, 30, 330, 100, 300, 330]
        let uneven = delays.indices.map { index in Int64?(delays[..<index].reduce(0, +)) }
        #expect(run(uneven, tuning: .keepingGaps, nominal: 100).times == uneven.compactMap { $0 })
        // Where gaps are not believed, the strict tuning still takes a jump out.
        #expect(run(stamps, tuning: .strict, nominal: 70).times != stamps.compactMap { $0 })
    }

    @Test func gapsAreKeptWithSoundOrWhereTimestampsDoNotJump() {
        #expect(FrameTimelineTuning.choose(hasSound: true, timestampsMayJump: true) == .keepingGaps)
        #expect(FrameTimelineTuning.choose(hasSound: false, timestampsMayJump: false) == .keepingGaps)   // a GIF held 2 s
        #expect(FrameTimelineTuning.choose(hasSound: false, timestampsMayJump: true) == .strict)   // a damaged PS alone
    }

    @Test func aJumpBeyondTheLongestGapIsTakenOutWhereGapsAreKept() {
        let stamps = steady(from: 0, count: 10) + steady(from: 21_981, count: 10)
        let (times, _) = run(stamps, tuning: .keepingGaps)
        #expect(times == steady(from: 0, count: 20).compactMap { $0 })
    }

    @Test func noStepIsEverLongerThanTheLimitOrBackwards() {
        // Garbage: random stamps, some missing. Whatever comes in, time goes forward by at
        // most four cadences a frame.
        var generator = SplitMix(seed: 12)
        for _ in 0..<50 {
            let stamps: [Int64?] = (0..<60).map { _ in
                generator.next() % 5 == 0 ? nil : Int64(generator.next() % 100_000) - 50_000
            }
            let (times, timeline) = run(stamps)
            for (before, after) in zip(times, times.dropFirst()) {
                #expect(after > before)
                #expect(after - before <= 4 * timeline.cadence.ticks(in: Rational(1, 1000)) + 1)
            }
        }
    }

    @Test func theCadenceFollowsTheStreamNotTheDeclaredRate() {
        // Declared 25 fps, really 10 fps: a 100 ms step is normal once frames show it.
        let (_, timeline) = run(steady(from: 0, count: 12, step: 100))
        #expect(timeline.cadence == ms(100))
    }

    @Test func aFirstFrameContradictedByTheRestTakesTheirTimeline() {
        var stamps = steady(from: 0, count: 10)
        stamps[0] = 7_200_000
        let (times, _) = run(stamps)
        #expect(times == steady(from: 0, count: 10).compactMap { $0 })
    }

    @Test func resetForgetsTheHeldFrameAndTheOffset() {
        var timeline = FrameTimeline<Int>(nominalCadence: ms(40))
        _ = timeline.push(0, pts: ms(0))
        _ = timeline.push(1, pts: ms(40))
        timeline.reset()
        #expect(timeline.finish() == nil)
        #expect(timeline.lastOutput == nil)
        #expect(timeline.offset == .zero)
    }

    @Test func absurdDeclaredRatesFallBackTo25fps() {
        #expect(FrameTimeline<Int>(nominalCadence: ms(-40)).nominalCadence == ms(40))
        #expect(FrameTimeline<Int>(nominalCadence: MediaTime(value: 3_600, timescale: 1)).nominalCadence == ms(40))
        #expect(FrameTimeline<Int>(nominalCadence: nil).nominalCadence == ms(40))
    }
}

/// A small deterministic generator for the garbage test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Int64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int64(bitPattern: (z ^ (z >> 31)) >> 1)
    }
}
