import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// A headless display whose first `slowDraws` back buffers take `slowSeconds` each to hand out,
/// as draws on a starved box do: the presenter's smoothed draw estimate runs high, then the
/// draws after are fast (AtOnceFlipEngineTests, VblankHoldEngineTests). It flips as `inner`
/// does, or at once when asked (`flipsWhenAsked`: a KMS driver without vblanks).
final class SlowFirstDrawsDisplay: VideoOutput {
    let inner: HeadlessDisplay
    let slowDraws: Int
    let slowSeconds: Double
    let flipsWhenAsked: Bool
    private var handedOut = 0

    init(_ inner: HeadlessDisplay, slowDraws: Int, slowSeconds: Double, flipsWhenAsked: Bool = false) {
        self.inner = inner
        self.slowDraws = slowDraws
        self.slowSeconds = slowSeconds
        self.flipsWhenAsked = flipsWhenAsked
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

extension SlowFirstDrawsDisplay {
    /// A 3 s 25 fps clip (`name`, made once) played once on this display with `settings`: every
    /// line of its stats file, and the video frames' flips as (flip time, pts).
    func playClipOnce(_ name: String, settings: PlayerSettings) throws -> (records: [[String: Any]], video: [(t: Double, pts: Double)]) {
        let clip = try MediaFixtures.clip("\(name).mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=3",
                                                          "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
        let stats = MediaFixtures.directory.appendingPathComponent("\(name)-stats-\(UUID().uuidString).jsonl").path
        var settings = settings
        settings.exitWhenFinished = true
        settings.statsPath = stats
        let item = ItemConfig(source: .file(clip), location: SourceLocation(file: "test", line: 1, column: 1))
        let player = try QueuePlayer(output: self, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
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
        return (records, video)
    }
}
