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

    @Test func aFrameDrawnFasterThanEstimatedWaitsForItsTime() throws {
        // 12 draws of 80 ms leave the estimate near 60 ms; the draws after take ~1 ms.
        let display = SlowDrawsDisplay(HeadlessDisplay(size: Self.screen, paced: false), slowDraws: 12, slowSeconds: 0.08,
                                            flipsWhenAsked: true)
        let (_, video) = try display.playClipOnce("at-once-25fps", settings: PlayerSettings())
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
