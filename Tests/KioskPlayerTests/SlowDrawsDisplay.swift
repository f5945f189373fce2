import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// A headless display whose back buffers take `slowSeconds` to hand out where `isSlow` says
/// (counted from 1), as draws on a starved box do. The first `slowDraws` of them: the
/// presenter's smoothed draw estimate runs high, then the draws after are fast
/// (AtOnceFlipEngineTests, VblankHoldEngineTests). Every `slowEvery`th: a draw now and then
/// runs refreshes past the estimate (LateTickerEngineTests). It flips as `inner` does, or at
/// once when asked (`flipsWhenAsked`: a KMS driver without vblanks).
final class SlowDrawsDisplay: VideoOutput {
    let inner: HeadlessDisplay
    let slowSeconds: Double
    let flipsWhenAsked: Bool
    /// How long the `n`th back buffer (from 1) takes to hand out; 0: at once.
    private let drawTime: (Int) -> Double
    private var handedOut = 0
    /// When each slow back buffer was handed out (CLOCK_MONOTONIC seconds, as the stats' `t`).
    private(set) var slowHandedOut: [Double] = []

    init(_ inner: HeadlessDisplay, slowDraws: Int, slowSeconds: Double, flipsWhenAsked: Bool = false) {
        self.inner = inner
        self.slowSeconds = slowSeconds
        self.flipsWhenAsked = flipsWhenAsked
        drawTime = { $0 <= slowDraws ? slowSeconds : 0 }
    }

    init(_ inner: HeadlessDisplay, slowEvery: Int, after: Int, slowSeconds: Double) {
        self.inner = inner
        self.slowSeconds = slowSeconds
        flipsWhenAsked = false
        drawTime = { $0 > after && $0 % slowEvery == 0 ? slowSeconds : 0 }
    }

    /// Every draw as `drawTime` says (seconds for the `n`th, from 1).
    init(_ inner: HeadlessDisplay, drawTime: @escaping (Int) -> Double) {
        self.inner = inner
        slowSeconds = 0
        flipsWhenAsked = false
        self.drawTime = drawTime
    }

    var size: PixelSize { inner.size }
    var refreshInterval: MediaTime { inner.refreshInterval }
    func expectedFlip(after host: Double) -> Double { inner.expectedFlip(after: host) }
    var flipsOnVblankGrid: Bool { inner.flipsOnVblankGrid }

    func backBuffer() throws -> PixelBuffer {
        handedOut += 1
        let seconds = drawTime(handedOut)
        if seconds > 0 {
            Thread.sleep(forTimeInterval: seconds)
            slowHandedOut.append(MonotonicClock().now())
        }
        return try inner.backBuffer()
    }

    func present(_ buffer: PixelBuffer) throws -> Double { try inner.present(buffer) }
}

extension VideoOutput {
    /// A 3 s 25 fps (or `fps`) clip (`name`, made once) played once on this display with `settings`: every
    /// line of its stats file, and the video frames' flips as (flip time, pts).
    func playClipOnce(_ name: String, fps: Int = 25, settings: PlayerSettings) throws
        -> (records: [[String: Any]], video: [(t: Double, pts: Double)]) {
        let clip = try MediaFixtures.clip("\(name).mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=\(fps):d=3",
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

/// The ticker's flips of a stats file, each as the vblank it was placed for against the one it
/// went up at: 2 px a refresh (120 px/s at 60 Hz) on from the first flip's position, less the
/// refreshes since the first flip. `usual`: the commonest (the flips placed for their own
/// vblank); higher was placed for a later vblank, lower for an earlier one. The first run of the
/// line only.
struct TickerSlots {
    let times: [Double]
    let slots: [Int]
    let usual: Int

    init(_ records: [[String: Any]], refresh: Double = 1.0 / 60, pixelsPerRefresh: Double = 2) {
        var flips: [(t: Double, x: Int)] = []
        for record in records {
            guard let t = record["t"] as? Double, let x = record["ticker"] as? Int else { continue }
            if let last = flips.last, x > last.x { break }   // the line's next run
            flips.append((t, x))
        }
        times = flips.map(\.t)
        let start = flips.first
        slots = flips.map { flip in
            guard let start else { return 0 }
            return Int((Double(start.x - flip.x) / pixelsPerRefresh - (flip.t - start.t) / refresh).rounded())
        }
        usual = Dictionary(grouping: slots, by: { $0 }).max { $0.value.count < $1.value.count }?.key ?? 0
    }

    var flips: Int { times.count }

    /// The index of the first flip at or after each of `moments` (the flip a draw begun then made).
    func firstFlips(after moments: [Double]) -> Set<Int> {
        Set(moments.compactMap { moment in times.firstIndex { $0 >= moment } })
    }

    /// (index, refreshes) of the flips placed `by` refreshes or more away from the usual, on
    /// the side `sign` says (+1 ahead, -1 behind).
    func away(_ sign: Int, by refreshes: Int = 1) -> [(offset: Int, element: Int)] {
        slots.enumerated().filter { ($0.element - usual) * sign >= refreshes }.map { ($0.offset, $0.element - usual) }
    }
}

/// A 120 px/s ticker over the bottom of the picture (VblankHoldEngineTests, LateTickerEngineTests).
func tickerSettings() -> PlayerSettings {
    var settings = PlayerSettings()
    settings.overlay = OverlayConfig()   // the font; the OSD stays hidden without input
    // 120 px/s at 60 Hz: 2 px a refresh. Its line and the strip are over 700 px: one run
    // lasts the whole clip.
    settings.layers = [LayerConfig(name: "news", content: .ticker(.text("News of the day +++ more news +++ and more"),
                                                                  speed: 120, separator: " +++ "),
                                   position: .bottom, margin: .pixels(0), size: .pixels(30), background: LayerColor(rgb: 0))]
    return settings
}
