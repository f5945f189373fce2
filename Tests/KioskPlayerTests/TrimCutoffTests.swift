import Foundation
import KioskCore
import KioskMedia
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// An item trimmed with `end:` is read only until each of its streams has passed `end`: a 1 s
/// cut of a long file used to be read and decoded to the file's end before the item ended.
@Suite struct TrimCutoffTests {
    static func seconds(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    /// What `isReached` answers, packet after packet: (stream, decode time in seconds or nil).
    static func answers(_ cutoff: inout TrimCutoff, _ packets: [(Int, Double?)]) -> [Bool] {
        packets.map { cutoff.isReached(stream: $0.0, decodeTime: $0.1.map { seconds($0) }) }
    }

    @Test func eachStreamReadMustPassTheEnd() {
        var cutoff = TrimCutoff(end: Self.seconds(2), streams: [0, 1])
        // The picture passes the end first; the sound may still be behind it in the file, a
        // packet without a time says nothing, and the sound's first packet past the end ends it.
        let answers = Self.answers(&cutoff, [(0, 1.9), (0, 2.0), (1, nil), (1, 1.99), (1, 2.01)])
        #expect(answers == [false, false, false, false, true])
    }

    @Test func aStreamThatStopsEarlyDoesNotHoldTheReadingToTheFilesEnd() {
        // The sound ends at 0.9 s; the picture goes on: 5 s past the end is enough.
        var cutoff = TrimCutoff(end: Self.seconds(2), streams: [0, 1])
        let answers = Self.answers(&cutoff, [(1, 0.9), (0, 2.5), (0, 6.9), (0, 7.0)])
        #expect(answers == [false, false, false, true])
    }

    @Test func aSeekReadsAgainToTheEnd() {
        var cutoff = TrimCutoff(end: Self.seconds(2), streams: [0])
        let before = Self.answers(&cutoff, [(0, 2.0)])
        cutoff.restart()
        let after = Self.answers(&cutoff, [(0, 0.5), (0, 2.1)])
        #expect(before == [true] && after == [false, true])
    }

    /// 40 s with sound, cut at 1 s: the end comes with the demuxer a few seconds in at most
    /// (the streams' interleave), and every frame before 1 s was handed out.
    @Test func aShortCutOfALongFileEndsWithoutReadingItAll() throws {
        let path = try MediaFixtures.clip("trim-long.mp4", [
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=40",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=40",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        var plan = ItemPlan(source: path)
        plan.end = Self.seconds(1)
        plan.audioFormat = .stereo48k
        let pipeline = ItemPipeline(plan: plan, logger: CapturedLog().logger)
        defer { pipeline.close() }
        var shown: [MediaTime] = []
        var length: MediaTime?
        let deadline = Date().addingTimeInterval(30)
        while length == nil, Date() < deadline {
            while pipeline.audio.pop(timeout: 0) != nil {}   // the sound is taken as a feeder would
            switch pipeline.frames.pop(timeout: 0.1) {
            case .frame(let frame, _)?: shown.append(frame.pts)
            case .end(let itemLength, _)?: length = itemLength
            case .failed(let error)?: Issue.record("\(error)"); return
            case nil: continue
            }
        }
        let demuxed = try #require(pipeline.progress.demuxedUntil).seconds
        #expect(length == Self.seconds(1))
        #expect(shown.count == 10 && shown.last.map { $0 < Self.seconds(1) } == true, "\(shown.map(\.seconds))")
        #expect(demuxed < 8, "read to \(demuxed) s of a 40 s file cut at 1 s")
    }
}
