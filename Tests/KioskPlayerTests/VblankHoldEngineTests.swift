import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// A panel that flips on a vblank grid. The presenter draws each picture for the flip it foresees
/// (`drawSeconds` after it starts, smoothed): the frame due then, a ticker's position then. After
/// slow draws the estimate runs high, a refresh or more; a fast draw then went up at the vblank
/// before the one it was drawn for: a video frame a refresh early, and a ticker two steps on at
/// once and one behind at the next flip (CI, 2026-11-29, test_layers). The presenter holds such a
/// picture until the vblank before its own has passed.
@Suite(.serialized) struct VblankHoldEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    /// Flips on a 60 Hz vblank grid (a headless display's); its first `slowDraws` back buffers
    /// take `slowSeconds` each to hand out, as draws on a starved box do.
    final class SlowThenFastPanel: VideoOutput {
        let inner = HeadlessDisplay(size: VblankHoldEngineTests.screen, refreshRate: 60, pacing: .vblank)
        let slowDraws: Int
        let slowSeconds: Double
        private var handedOut = 0
        init(slowDraws: Int, slowSeconds: Double) {
            self.slowDraws = slowDraws
            self.slowSeconds = slowSeconds
        }
        var size: PixelSize { inner.size }
        var refreshInterval: MediaTime { inner.refreshInterval }
        func expectedFlip(after host: Double) -> Double { inner.expectedFlip(after: host) }
        var flipsOnVblankGrid: Bool { inner.flipsOnVblankGrid }
        func backBuffer() throws -> PixelBuffer {
            handedOut += 1
            if handedOut <= slowDraws { Thread.sleep(forTimeInterval: slowSeconds) }
            return try inner.backBuffer()
        }
        func present(_ buffer: PixelBuffer) throws -> Double { try inner.present(buffer) }
    }

    @Test func nothingDrawnForALaterVblankGoesUpBeforeIt() throws {
        let clip = try MediaFixtures.clip("vblank-hold-25fps.mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3",
                                                                   "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
        let stats = MediaFixtures.directory.appendingPathComponent("vblank-hold-stats-\(UUID().uuidString).jsonl").path
        var settings = PlayerSettings()
        settings.exitWhenFinished = true
        settings.statsPath = stats
        settings.overlay = OverlayConfig()   // the font; the OSD stays hidden without input
        // 120 px/s at 60 Hz: 2 px a refresh. Its line and the strip are over 700 px: one run
        // lasts the whole clip.
        settings.layers = [LayerConfig(name: "news", content: .ticker(.text("News of the day +++ more news +++ and more"),
                                                                      speed: 120, separator: " +++ "),
                                       position: .bottom, margin: .pixels(0), size: .pixels(30), background: LayerColor(rgb: 0))]
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        // 24 back buffers of 30 ms, shared by the frames' draws and the ticker's refreshes (each
        // with an estimate of its own), take both estimates near 20 ms (more than a refresh);
        // the draws after take a millisecond or two, and the estimates come down over a few flips.
        let display = SlowThenFastPanel(slowDraws: 24, slowSeconds: 0.03)
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                              loopMode: .none),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        let finished = player.waitUntilFinished(timeout: 30)
        if !finished { player.stop() }
        #expect(finished, "playback ends")

        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        let records = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let refresh = 1.0 / 60

        let video = records.filter { $0["video"] as? Bool == true }.compactMap { record -> (t: Double, pts: Double)? in
            guard let t = record["t"] as? Double, let pts = record["pts"] as? Double else { return nil }
            return (t, pts)
        }
        #expect(video.count >= 40, "most of the 75 frames shown (\(video.count))")
        guard let first = video.first else { return }
        // The pacer takes a frame due within half a refresh of its flip (8.3 ms); a refresh
        // early is 8-25 ms.
        let early = video.map { (($0.pts - first.pts) - ($0.t - first.t)) * 1000 }.enumerated().filter { $0.element > 12 }
        #expect(early.isEmpty, "frames shown early (index, ms): \(early.prefix(8).map { "(\($0.offset), \(Int($0.element)))" })")

        // Each flip's ticker position says which vblank it was placed for: 2 px a refresh on
        // from the first's. Placed for a later vblank than it went up at is ahead of the flips
        // placed for their own (the most: late ones are a few on a busy machine).
        // The count of late flips is not bounded here: the machine makes those (test_layers).
        var flips: [(t: Double, x: Int)] = []
        for record in records {
            guard let t = record["t"] as? Double, let x = record["ticker"] as? Int else { continue }
            if let last = flips.last, x > last.x { break }   // the line's next run
            flips.append((t, x))
        }
        #expect(flips.count >= 60, "the ticker moved at the refreshes (\(flips.count) flips)")
        guard let start = flips.first else { return }
        let slots = flips.map { Int((Double(start.x - $0.x) / 2 - ($0.t - start.t) / refresh).rounded()) }
        let usual = Dictionary(grouping: slots, by: { $0 }).max { $0.value.count < $1.value.count }?.key ?? 0
        let ahead = slots.enumerated().filter { $0.element > usual }
        #expect(ahead.isEmpty, "flips whose ticker was placed for a later vblank (index, refreshes): \(ahead.prefix(8).map { "(\($0.offset), \($0.element - usual))" })")
    }
}
