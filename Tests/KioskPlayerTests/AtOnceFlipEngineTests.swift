import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// A display whose flips complete the moment they are asked for (no vblank: bochs, virtio-gpu,
/// simpledrm, USB displays). The pacer picks the frame due at `now + drawSeconds`, a smoothed
/// estimate of the draw; after slow draws the estimate runs high, and a fast draw then put the
/// frame up before its time by the difference (43-51 ms in CI's virtio-gpu guest). The
/// presenter holds such a frame until the moment it was drawn for.
@Suite(.serialized) struct AtOnceFlipEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    /// Flips at once (an unpaced headless display underneath); its first `slowDraws` back
    /// buffers take `slowSeconds` each to hand out, as draws on a starved box do.
    final class AtOnceDisplay: VideoOutput {
        let inner = HeadlessDisplay(size: AtOnceFlipEngineTests.screen, paced: false)
        let slowDraws: Int
        let slowSeconds: Double
        private var handedOut = 0
        init(slowDraws: Int, slowSeconds: Double) {
            self.slowDraws = slowDraws
            self.slowSeconds = slowSeconds
        }
        var size: PixelSize { inner.size }
        var refreshInterval: MediaTime { inner.refreshInterval }
        var flipsWhenAsked: Bool { true }
        func backBuffer() throws -> PixelBuffer {
            handedOut += 1
            if handedOut <= slowDraws { Thread.sleep(forTimeInterval: slowSeconds) }
            return try inner.backBuffer()
        }
        func present(_ buffer: PixelBuffer) throws -> Double { try inner.present(buffer) }
    }

    @Test func aFrameDrawnFasterThanEstimatedWaitsForItsTime() throws {
        let clip = try MediaFixtures.clip("at-once-25fps.mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3",
                                                              "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
        let stats = MediaFixtures.directory.appendingPathComponent("at-once-stats-\(UUID().uuidString).jsonl").path
        var settings = PlayerSettings()
        settings.exitWhenFinished = true
        settings.statsPath = stats
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        // 12 draws of 80 ms leave the estimate near 60 ms; the draws after take ~1 ms.
        let display = AtOnceDisplay(slowDraws: 12, slowSeconds: 0.08)
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                              loopMode: .none),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        let finished = player.waitUntilFinished(timeout: 30)
        if !finished { player.stop() }
        #expect(finished, "playback ends")

        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let video = records.filter { $0["video"] as? Bool == true }.compactMap { record -> (t: Double, pts: Double)? in
            guard let t = record["t"] as? Double, let pts = record["pts"] as? Double else { return nil }
            return (t, pts)
        }
        let count = video.count
        #expect(count >= 40, "most of the 75 frames shown after the slow draws (\(count))")
        guard let first = video.first else { return }
        // The clock starts at the first flip and only ever restarts later (a stall), so a frame
        // ahead of the first flip's line is ahead of the clock. The pacer takes a frame due within
        // half a refresh of its flip (8.3 ms at 60 Hz); unheld, the frames after the slow draws
        // went up 20-60 ms early.
        let early = video.map { (($0.pts - first.pts) - ($0.t - first.t)) * 1000 }.enumerated().filter { $0.element > 20 }
        #expect(early.isEmpty, "frames shown early (index, ms): \(early.prefix(8).map { "(\($0.offset), \(Int($0.element)))" })")
    }
}
