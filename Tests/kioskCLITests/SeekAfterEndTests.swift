import Foundation
import KioskCore
import KioskDisplay
import KioskPlayer
import KioskTestSupport
import Logging
import Testing

/// A short clip is demuxed to its end at once; its demux thread then waits on a condition
/// (it used to poll every 10 ms, waking a paused box 100 times a second) until a seek or the
/// close. A seek must wake it: frames of the new generation appear, from the new position.
@Suite struct SeekAfterEndTests {
    @Test func aSeekWakesTheDemuxerParkedAtTheEnd() throws {
        let clip = try MediaFixtures.pattern("parked-demuxer.mp4", width: 64, height: 64, rate: 25, seconds: 0.8)
        let stats = FileManager.default.temporaryDirectory.appendingPathComponent("parked-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        let entries = PlaylistExpander().expand([item]).entries
        var settings = PlayerSettings()
        settings.playback.startPaused = true
        settings.statsPath = stats
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 64, height: 64)),
                                     playlist: PlaylistCursor(entries: entries, loopMode: .none), settings: settings,
                                     logger: Logger(label: "test"))
        player.start()
        defer { player.stop() }
        // Paused on the first frame; 20 packets fit the demuxer's queue, so it reads to the end
        // and parks.
        #expect(waitFor { records(stats).count >= 1 })
        Thread.sleep(forTimeInterval: 0.5)
        player.send(.seek(to: MediaTime(value: 1, timescale: 2)))
        #expect(waitFor { records(stats).contains { $0.generation == 1 } }, "no frame after the seek: the demuxer stayed parked")
        let afterSeek = try #require(records(stats).first { $0.generation == 1 })
        #expect(abs(afterSeek.pts - 0.5) < 0.05, "the first frame after the seek is at \(afterSeek.pts) s, not 0.5 s")
    }

    /// Seeks one after the other into a parked demuxer (a paused scrub): every one of them must
    /// show its frame. (The race this guards against, the woken demux thread queueing its seek
    /// message before the seek flushed the queues, needs a presenter preempted at that instant:
    /// the bed's overlay scrub hit it under TCG; on the host this passes with the old order too.)
    @Test func everySeekIntoAParkedDemuxerShowsItsFrame() throws {
        let clip = try MediaFixtures.pattern("parked-demuxer-scrub.mp4", width: 64, height: 64, rate: 25, seconds: 0.8)
        let stats = FileManager.default.temporaryDirectory.appendingPathComponent("scrub-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: stats) }
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        var settings = PlayerSettings()
        settings.playback.startPaused = true
        settings.statsPath = stats
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 64, height: 64)),
                                     playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries, loopMode: .none),
                                     settings: settings, logger: Logger(label: "test"))
        player.start()
        defer { player.stop() }
        #expect(waitFor { records(stats).count >= 1 })
        for generation in 1...30 {
            Thread.sleep(forTimeInterval: 0.02)   // the demux thread parks again at the end
            player.send(.seek(to: MediaTime(value: Int64(generation % 7), timescale: 10)))
            guard waitFor({ records(stats).contains { $0.generation == generation } }) else {
                Issue.record("seek \(generation) never showed a frame")
                return
            }
        }
    }

    private func records(_ path: String) -> [(pts: Double, generation: Int)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let pts = object["pts"] as? Double, let generation = object["gen"] as? Int else { return nil }
            return (pts, generation)
        }
    }

    /// Polls `condition` for up to 10 s (the machine is shared and slow at times).
    private func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
