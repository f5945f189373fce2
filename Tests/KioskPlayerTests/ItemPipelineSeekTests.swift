import Foundation
import KioskCore
import KioskMedia
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// A burst of seeks (a scrub) while the pipeline's queues are full: every generation's frames
/// start at its seek and go on from there, and the decode thread never sees two positions of
/// the file as one timeline. (The CI run of 2026-11-23 logged "untrusted video timestamp: jump
/// to 24.300 s taken out at 11.400 s" in the bed after a scrub: a packet read from the old
/// position after the seek flushed the packet queue, but before it published its generation,
/// was decoded as if nothing had happened, 128 packets (12.8 s of the 10 fps clip) after the
/// previous one.)
@Suite struct ItemPipelineSeekTests {
    /// 30 s at 10 fps with a keyframe every second, like the bed's input clips.
    static func clip() throws -> String {
        try MediaFixtures.clip("seek-burst.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=30",
                                                  "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p"])
    }

    /// Pops until a frame of `generation` comes; returns it, or nil after `timeout` seconds.
    static func firstFrame(of generation: Int, from pipeline: ItemPipeline, timeout: Double = 20) -> DecodedFrame? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            switch pipeline.frames.pop(timeout: 0.1) {
            case .frame(let frame, let frameGeneration)? where frameGeneration == generation: return frame
            case .failed?: return nil
            default: continue
            }
        }
        return nil
    }

    @Test func everySeekOfABurstStartsItsOwnTimeline() throws {
        let log = CapturedLog()
        let pipeline = ItemPipeline(plan: ItemPlan(source: try Self.clip()), logger: log.logger)
        defer { pipeline.close() }
        #expect(Self.firstFrame(of: 0, from: pipeline) != nil)
        // Far apart, so a frame of the wrong position cannot pass for the right one.
        for index in 0..<60 {
            let tenths: Int64 = index % 2 == 0 ? 30 + Int64(index % 7) : 200 + Int64(index % 9)
            let target = MediaTime(value: tenths, timescale: 10)
            // Nothing is taken for a while: the frame queue fills, the decode thread waits to
            // hand out a frame and the demux thread to queue a packet, as in a paused scrub.
            Thread.sleep(forTimeInterval: 0.03)
            pipeline.seek(to: target)
            let generation = pipeline.currentGeneration
            let first = try #require(Self.firstFrame(of: generation, from: pipeline))
            // The first frame shown is the one at the target (frames before it only lead there).
            let miss: Double = abs((first.pts - target).seconds)
            #expect(miss < 0.051, "seek to \(target.seconds) s showed \(first.pts.seconds) s")
            // The frames after it go on one by one from there.
            var previous = first.pts
            for _ in 0..<3 {
                guard case .frame(let frame, generation)? = pipeline.frames.pop(timeout: 20) else { break }
                let step: Double = (frame.pts - previous).seconds
                #expect(abs(step - 0.1) < 0.01, "after \(previous.seconds) s came \(frame.pts.seconds) s")
                previous = frame.pts
            }
        }
        // A correct stream seeked on purpose has nothing to correct.
        #expect(log.lines(atLeast: .warning).isEmpty, "\(log.lines(atLeast: .warning))")
    }

    /// A target past the last frame but inside the item (an item resumed after an override
    /// came 5.99 s into its 6 s; a skip to its very end) shows the last frame, at the target,
    /// then the end. Before, nothing was delivered and the item failed as "no picture could
    /// be decoded" (CI, 2026-11-28, in ArmedOverrideEngineTests).
    @Test func aTargetPastTheLastFrameShowsTheLastFrameThenTheEnd() throws {
        var plan = ItemPlan(source: try Self.clip())
        plan.start = MediaTime(value: 2995, timescale: 100)   // the last frame is at 29.9 s
        let pipeline = ItemPipeline(plan: plan, logger: CapturedLog().logger)
        defer { pipeline.close() }
        var messages: [String] = []
        while messages.count < 3, let message = pipeline.frames.pop(timeout: 20) {
            switch message {
            case .frame(let frame, _): messages.append("frame \(frame.pts.seconds)")
            case .end: messages.append("end")
            case .failed(let error): messages.append("failed: \(error)")
            }
            if messages.last?.hasPrefix("frame") == false { break }
        }
        #expect(messages == ["frame 29.95", "end"])
    }
}

