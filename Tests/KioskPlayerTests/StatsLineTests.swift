import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// The stats file's `rt`: CLOCK_REALTIME seconds of each flip, beside `t` (CLOCK_MONOTONIC), so
/// frame sync between boxes can be measured on their shared real-time clock.
@Suite struct StatsLineTests {
    struct Line: Decodable {
        var t: Double
        var rt: Double
    }

    @Test func everyFlipHasItsRealTime() throws {
        let entry = try PlaylistProgramEngineTests.entry("stats-rt.mp4", seconds: 1)
        let stats = PlaylistProgramEngineTests.statsPath("rt")
        var settings = PlayerSettings()
        settings.statsPath = stats
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                     playlist: PlaylistCursor(entries: [entry], loopMode: .playlist),
                                     settings: settings, logger: CapturedLog().logger)
        let before = Date().timeIntervalSince1970
        player.start()
        #expect(waitUntil(20) { player.framesPresented >= 10 })
        _ = player.stop()
        let after = Date().timeIntervalSince1970
        let text = try String(contentsOfFile: stats, encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
        let first = try #require(lines.first)
        #expect(lines.count >= 10)
        for line in lines {
            // On the wall clock, inside the run; one flip's distance from the first as on the monotonic clock.
            #expect(line.rt >= before - 0.1 && line.rt <= after + 0.1, "\(line.rt) outside \(before)...\(after)")
            #expect(abs((line.rt - first.rt) - (line.t - first.t)) < 0.005, "\(line) against \(first)")
        }
    }
}
