import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// `--untimed` (tests, benchmarks) shows frames as fast as they decode while playing; paused, it
/// holds like a timed player. It used to race on while saying "paused" (found in the soak test:
/// its threads "at rest" were counted while frames still flowed).
@Suite struct UntimedPauseTests {
    @Test func aPauseHoldsTheUntimedPlayerAndPlayLetsItGoOn() throws {
        let entry = try PlaylistProgramEngineTests.entry("untimed-pause.mp4", seconds: 2)
        var settings = PlayerSettings()
        settings.untimed = true
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 160, height: 120), paced: false),
                                     playlist: PlaylistCursor(entries: [entry], loopMode: .playlist),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(20) { player.framesPresented >= 20 })
        player.send(.pause)
        #expect(waitUntil(10) { player.timeControlStatus == .paused })
        // Whatever was already on its way (a step under way) lands; then nothing.
        Thread.sleep(forTimeInterval: 0.2)
        let held = player.framesPresented
        Thread.sleep(forTimeInterval: 1.0)
        #expect(player.framesPresented <= held + 1, "\(player.framesPresented - held) frames while paused")
        player.send(.play)
        #expect(waitUntil(20) { player.framesPresented >= held + 20 })
    }
}
