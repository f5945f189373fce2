import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The stall guard on a simulated clock: host times in seconds, progress and waits as the
/// presenter would report them.
@Suite struct StallGuardTests {
    private func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    @Test func framesOnTimeNeverStall() {
        var guardian = StallGuard(timeout: s(5))
        guardian.expectProgress(at: s(0))
        for tick in stride(from: 0.04, through: 60, by: 0.04) {
            guardian.progressed(at: s(tick))
            guardian.expectProgress(at: s(tick))
            #expect(!guardian.isStalled(at: s(tick + 0.02)))
        }
    }

    /// As StallWatch looks each turn of the loop at an item that should play but has not
    /// opened (a capture device's first open loading libavdevice over a slow disk).
    private func firstStall(openedAt opened: Double?, until end: Double) -> Double? {
        var guardian = StallGuard(timeout: s(5))
        for tick in stride(from: 0.0, through: end, by: 0.05) {
            let unopened = opened.map { tick < $0 } ?? true
            if !unopened { guardian.opened() }
            if unopened && guardian.opening(at: s(tick)) { guardian.standDown() } else { guardian.expectProgress(at: s(tick)) }
            if guardian.isStalled(at: s(tick)) { return tick }
        }
        return nil
    }

    @Test func anItemThatTakesLongerThanTheTimeoutToOpenIsNotAStall() {
        // Opened after 7 s (the timeout is 5): then frames come, none stalled.
        #expect(firstStall(openedAt: 7, until: 11.9) == nil)
        // Opened, but no frame after it: the timeout counts from the open.
        let stall = firstStall(openedAt: 7, until: 30)
        #expect(stall != nil && abs(stall! - 12) < 0.06)
    }

    @Test func anItemThatNeverOpensIsAStallAfterTheAllowanceAndTheTimeout() {
        let stall = firstStall(openedAt: nil, until: 30)
        #expect(stall != nil && abs(stall! - 15) < 0.06)   // openingAllowance 10 s + timeout 5 s
    }

    @Test func eachItemHasItsOwnOpeningAllowance() {
        var guardian = StallGuard(timeout: s(5))
        let first = [0, 9.9, 10].map { guardian.opening(at: s($0)) }
        #expect(first == [true, true, false])
        #expect(guardian.openingSince == s(0))
        guardian.opened()   // the next item
        #expect(guardian.openingSince == nil)
        let next = [50, 59.9, 60].map { guardian.opening(at: s($0)) }
        #expect(next == [true, true, false])
    }

    @Test func aDecoderAtWorkIsNotAStallAndOneThatStopsIs() {
        // The first frame of a clip takes 8 s on a loaded box while its decoder takes packets.
        var guardian = StallGuard(timeout: s(5))
        guardian.watchingAnotherItem()
        guardian.expectProgress(at: s(0))
        guardian.progressed(at: s(0))   // the item began
        guardian.decoderWorked(steps: 0, at: s(0))
        for (tick, steps) in zip(stride(from: 1.0, through: 8, by: 1), 1...) {
            guardian.decoderWorked(steps: steps, at: s(tick))
            #expect(!guardian.isStalled(at: s(tick)))
        }
        #expect(guardian.overdueSince == s(8))
        // The reader blocks (a dead mount): the count stands still and the timeout runs out.
        for tick in stride(from: 9.0, through: 12.9, by: 1) {
            guardian.decoderWorked(steps: 8, at: s(tick))
            #expect(!guardian.isStalled(at: s(tick)))
        }
        guardian.decoderWorked(steps: 8, at: s(13))
        #expect(guardian.isStalled(at: s(13)))
    }

    @Test func aDecoderThatChewsWithoutAPictureIsAStallAfterTheAllowance() {
        // A damaged file: its decoder takes packet after packet and shows nothing.
        var guardian = StallGuard(timeout: s(5))
        guardian.watchingAnotherItem()
        guardian.expectProgress(at: s(0))
        guardian.decoderWorked(steps: 0, at: s(0))
        var stalledAt: Double?
        for (tick, steps) in zip(stride(from: 0.5, through: 30, by: 0.5), 1...) {
            guardian.decoderWorked(steps: steps, at: s(tick))
            if guardian.isStalled(at: s(tick)) { stalledAt = tick; break }
        }
        // Worked until 9.5 s (under the 10 s allowance after the start), then the timeout.
        #expect(stalledAt == 14.5)
        // A frame on screen restores the allowance.
        guardian.progressed(at: s(15))
        guardian.decoderWorked(steps: 1000, at: s(20))
        #expect(guardian.overdueSince == s(20))
    }

    @Test func decoderWorkCountsOnlyWhileProgressIsExpectedAndPerItem() {
        var guardian = StallGuard(timeout: s(5))
        guardian.decoderWorked(steps: 10, at: s(0))
        guardian.decoderWorked(steps: 20, at: s(1))   // paused: the decoder fills its queue
        #expect(guardian.overdueSince == nil)
        guardian.expectProgress(at: s(2))
        guardian.decoderWorked(steps: 20, at: s(3))
        #expect(guardian.overdueSince == s(2))
        // The next item's count starts low: its first look is not progress, its next step is.
        guardian.watchingAnotherItem()
        guardian.decoderWorked(steps: 3, at: s(4))
        #expect(guardian.overdueSince == s(2))
        guardian.decoderWorked(steps: 4, at: s(6))
        #expect(guardian.overdueSince == s(6))
    }

    @Test func noProgressForTheTimeoutIsAStall() {
        var guardian = StallGuard(timeout: s(5))
        guardian.expectProgress(at: s(100))
        guardian.progressed(at: s(101))
        guardian.expectProgress(at: s(103))   // still expected: the count goes on from 101
        #expect(!guardian.isStalled(at: s(105.9)))
        #expect(guardian.isStalled(at: s(106)))
        #expect(guardian.overdueSince == s(101))
    }

    @Test func aFrameAnnouncedAnHourAheadIsBelievedOnlyForTheLongestWait() {
        // The reported freeze: the presenter waited for a frame due in an hour.
        var guardian = StallGuard(timeout: s(5))
        guardian.progressed(at: s(10))
        guardian.awaiting(dueAt: s(3_610), longestWait: s(0.2))
        #expect(guardian.overdueSince == s(10.2))
        #expect(!guardian.isStalled(at: s(15.1)))
        #expect(guardian.isStalled(at: s(15.2)))
    }

    @Test func aFrameDueSoonCountsFromItsTime() {
        // A slide show: frames 4 s apart are believed (the cadence says so), and the timeout
        // counts from when the frame is due, not from the last one.
        var guardian = StallGuard(timeout: s(5))
        guardian.progressed(at: s(0))
        guardian.awaiting(dueAt: s(4), longestWait: s(16))
        #expect(!guardian.isStalled(at: s(8.9)))
        #expect(guardian.isStalled(at: s(9)))
    }

    @Test func aStillsConfiguredTimeIsAlwaysBelieved() {
        var guardian = StallGuard(timeout: s(5))
        guardian.progressed(at: s(0))
        guardian.awaiting(dueAt: s(60), longestWait: nil)
        #expect(!guardian.isStalled(at: s(64)))
        #expect(guardian.isStalled(at: s(65)))
    }

    @Test func pausingStandsDownAndPlayingAgainCountsAfresh() {
        var guardian = StallGuard(timeout: s(5))
        guardian.expectProgress(at: s(0))
        guardian.standDown()   // paused at 1 s, for a minute
        #expect(guardian.overdueSince == nil)
        #expect(!guardian.isStalled(at: s(61)))
        guardian.expectProgress(at: s(61))
        #expect(!guardian.isStalled(at: s(65.9)))
        #expect(guardian.isStalled(at: s(66)))
    }

    @Test func progressClearsAnAwaitedFrame() {
        var guardian = StallGuard(timeout: s(5))
        guardian.progressed(at: s(0))
        guardian.awaiting(dueAt: s(3), longestWait: s(10))
        guardian.progressed(at: s(3))
        #expect(guardian.overdueSince == s(3))
    }
}

@Suite struct VideoAlignmentTests {
    private func s(_ seconds: Double) -> MediaTime { MediaTime(seconds: seconds) }

    @Test func aFrameWithinAFewPeriodsIsLeftAlone() {
        let wait = VideoAlignment.longestWait(cadence: s(0.04), tuning: .strict)
        #expect(wait == s(0.2))
        #expect(VideoAlignment.shift(framePTS: s(1.2), position: s(1.0), longestWait: wait) == nil)
        #expect(VideoAlignment.shift(framePTS: s(0.5), position: s(1.0), longestWait: wait) == nil)   // late: dropped, not moved
    }

    @Test func aVideoFarAheadOfItsSoundIsMovedToTheClock() {
        // The damaged AVI: video stamped 327.68 s, the sound heard at 0.1 s.
        let wait = VideoAlignment.longestWait(cadence: s(0.04), tuning: .keepingGaps)
        #expect(VideoAlignment.shift(framePTS: s(327.72), position: s(0.1), longestWait: wait) == s(0.1) - s(327.72))
        // A real gap of 8 s that the sound plays through is waited for.
        #expect(VideoAlignment.shift(framePTS: s(9), position: s(1), longestWait: wait) == nil)
    }

    @Test func aVideoFarBehindIsMovedToo() {
        let wait = VideoAlignment.longestWait(cadence: s(0.04), tuning: .keepingGaps)
        #expect(VideoAlignment.shift(framePTS: s(1), position: s(30), longestWait: wait) == s(29))
    }
}
