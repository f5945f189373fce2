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

    struct AimedLine: Decodable {
        var t: Double
        var aim: Double?
    }

    /// A playing frame's line says the flip the pacer chose it for (`aim`), so a reader can tell
    /// a vblank missed from a frame held a refresh longer by the cadence: on a vblank grid it is
    /// the flip itself, or a refresh or more before it when one was missed, never after it. The
    /// first frame (untimed: it sets the clock) has none.
    @Test func aPlayingFrameSaysTheFlipItWasAimedAt() throws {
        let entry = try PlaylistProgramEngineTests.entry("stats-aim.mp4", seconds: 2)
        let stats = PlaylistProgramEngineTests.statsPath("aim")
        var settings = PlayerSettings()
        settings.statsPath = stats
        let display = HeadlessDisplay(size: PixelSize(width: 320, height: 240), refreshRate: 60, pacing: .vblank)
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: [entry], loopMode: .playlist),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        #expect(waitUntil(20) { player.framesPresented >= 20 })
        _ = player.stop()
        let text = try String(contentsOfFile: stats, encoding: .utf8)
        let lines = try text.split(separator: "\n").map { try JSONDecoder().decode(AimedLine.self, from: Data($0.utf8)) }
        #expect(lines.count >= 20)
        #expect(lines.first?.aim == nil, "the first frame is untimed")
        let aimed = lines.compactMap { line in line.aim.map { (t: line.t, aim: $0) } }
        #expect(aimed.count >= lines.count / 2, "\(aimed.count) of \(lines.count) lines say their aim")
        #expect(aimed.allSatisfy { $0.aim <= $0.t + 0.001 }, "a flip before the one its frame was chosen for: \(aimed)")
        let onTheirVblank = aimed.filter { $0.t - $0.aim < 0.002 }
        #expect(onTheirVblank.count * 2 >= aimed.count, "most flips land on the vblank they were aimed at: \(aimed)")
    }
}
