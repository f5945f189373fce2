import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Suite struct TimestampContinuityTests {
    /// Packets of one stream every 40 ms from `start` (microseconds), `count` of them.
    private func packets(from start: Int64, count: Int) -> [Int64] {
        (0..<count).map { start + Int64($0) * 40_000 }
    }

    /// What the stream's timestamps become: each plus the offset returned for it.
    private func corrected(_ stamps: [Int64], stream: Int = 0, into continuity: inout TimestampContinuity) -> [Int64] {
        stamps.map { $0 + continuity.correction(stream: stream, timestamp: $0, duration: 40_000) }
    }

    @Test func aJumpOfAnHourIsTakenOut() {
        var continuity = TimestampContinuity()
        let out = corrected(packets(from: 0, count: 25) + packets(from: 3_600_000_000, count: 25), into: &continuity)
        #expect(out == packets(from: 0, count: 50))
        #expect(continuity.offset == 1_000_000 - 3_600_000_000)
    }

    @Test func aJumpBackToZeroIsTakenOut() {
        var continuity = TimestampContinuity()
        let out = corrected(packets(from: 3_600_000_000, count: 25) + packets(from: 0, count: 25), into: &continuity)
        #expect(out == packets(from: 3_600_000_000, count: 50))
    }

    @Test func gapsUpToTheThresholdAreKept() {
        // A real pause in a broadcast (9 s) is content, not a discontinuity.
        var continuity = TimestampContinuity()
        let stamps = packets(from: 0, count: 10) + packets(from: 9_400_000, count: 10)
        #expect(corrected(stamps, into: &continuity) == stamps)
        #expect(continuity.offset == 0)
    }

    @Test func theOffsetFoundOnOneStreamAppliesToTheOther() {
        // Video sees the jump first; the sound's next packet is already in the new timeline
        // and comes out continuous with the offset video found, not corrected twice.
        var continuity = TimestampContinuity()
        _ = continuity.correction(stream: 0, timestamp: 960_000, duration: 40_000)
        _ = continuity.correction(stream: 1, timestamp: 980_000, duration: 21_333)
        let videoOffset = continuity.correction(stream: 0, timestamp: 3_600_000_000, duration: 40_000)
        let audioOffset = continuity.correction(stream: 1, timestamp: 3_600_001_000, duration: 21_333)
        #expect(videoOffset == audioOffset)
        #expect(3_600_001_000 + audioOffset == 1_001_000)
    }

    @Test func resetTakesTheFileAsItIsAgain() {
        var continuity = TimestampContinuity()
        _ = corrected(packets(from: 0, count: 2) + packets(from: 3_600_000_000, count: 2), into: &continuity)
        continuity.reset()
        #expect(continuity.offset == 0)
        #expect(corrected(packets(from: 3_600_000_000, count: 3), into: &continuity) == packets(from: 3_600_000_000, count: 3))
    }

    @Test func anAbsurdPacketDurationIsNotTakenForAJump() {
        // A damaged H.264 header made every frame of a transport stream last 20.5 s: the next
        // packet, 40 ms on, is where the stream goes on, not a jump back.
        var continuity = TimestampContinuity()
        let stamps = packets(from: 0, count: 20)
        let out = stamps.map { $0 + continuity.correction(stream: 0, timestamp: $0, duration: 20_520_000) }
        #expect(out == stamps)
        #expect(continuity.offset == 0)
    }
}
