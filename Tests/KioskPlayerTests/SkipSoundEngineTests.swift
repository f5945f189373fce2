import Foundation
import KioskAudio
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// The items' sound through the whole engine (AudioPath's feeder and the writer) into a
/// recording: each item's sound is heard, and a skip cuts the old item's for the next one's.
@Suite(.serialized) struct SkipSoundEngineTests {
    typealias Program = PlaylistProgramEngineTests

    /// A 320x240 clip with a sine of `hertz` (ffmpeg's sine: 1/8 of full scale).
    static func toneClip(_ name: String, hertz: Int, seconds: Double) throws -> PlaylistEntry {
        let path = try MediaFixtures.clip(name, [
            "-f", "lavfi", "-i", MediaFixtures.patternFilter(width: 320, height: 240, seconds: seconds),
            "-f", "lavfi", "-i", "sine=frequency=\(hertz):sample_rate=48000:duration=\(seconds)",
            "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"])
        let item = ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: 1, column: 1))
        return try #require(PlaylistExpander().expand([item]).entries.first)
    }

    /// The left channel's level of `hertz` in each 10 ms window of interleaved s16 stereo
    /// (a Hann-windowed DFT bin: a whole window of ffmpeg's sine reads about 15).
    static func levels(_ samples: [Int16], hertz: Double) -> [Double] {
        let window = 480
        let frames = samples.count / 2
        return stride(from: 0, to: frames - window + 1, by: window).map { start in
            var re = 0.0, im = 0.0
            for n in 0..<window {
                let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(n) / Double(window - 1))
                let x = Double(samples[2 * (start + n)]) / 32768 * hann
                let phase = 2 * Double.pi * hertz * Double(n) / 48_000
                re += x * cos(phase)
                im -= x * sin(phase)
            }
            return (re * re + im * im).squareRoot()
        }
    }

    @Test func eachItemsSoundIsHeardAndASkipCutsTheOldOnesForTheNextOnes() throws {
        let low = try Self.toneClip("skip-sound-440.mp4", hertz: 440, seconds: 6)
        let high = try Self.toneClip("skip-sound-880.mp4", hertz: 880, seconds: 6)
        let recording = AudioFixtures.scratchPath("skip-sound")
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let log = CapturedLog()
        var settings = PlayerSettings()
        settings.statsPath = Program.statsPath("skip-sound")
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                     playlist: PlaylistCursor(entries: [low, high], loopMode: .playlist),
                                     settings: settings, audioOutput: RecordingSink(path: recording), logger: log.logger)
        player.start()
        #expect(Program.waitUntil(30) { player.currentItemTitle == low.title && player.currentTime.seconds > 1.0 }, "the first item plays")
        player.send(.nextItem)
        #expect(Program.waitUntil(30) { player.currentItemTitle == high.title && player.currentTime.seconds > 1.0 }, "the second item plays")
        _ = player.stop()

        let data = try Data(contentsOf: URL(fileURLWithPath: recording))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let lows = Self.levels(samples, hertz: 440).enumerated().filter { $0.element > 3 }.map(\.offset)
        let highs = Self.levels(samples, hertz: 880).enumerated().filter { $0.element > 3 }.map(\.offset)
        let seen = "\(samples.count / 96) windows: 440 Hz in \(lows.first ?? -1)...\(lows.last ?? -1) (\(lows.count)), "
            + "880 Hz in \(highs.first ?? -1)...\(highs.last ?? -1) (\(highs.count))"
        // About a second of each (more of the first: the skip's request crosses the mailbox).
        #expect(lows.count >= 80 && highs.count >= 80, "both items heard: \(seen)")
        let firstHigh = try #require(highs.first, "\(seen)")
        // The window where one ends and the other begins may hold both; none after it the old one.
        #expect(lows.allSatisfy { $0 <= firstHigh }, "the first item's sound after the second's began: \(seen)")
        #expect(highs.count >= Int(0.9 * Double(highs.last! - firstHigh)), "the second item's sound runs on: \(seen)")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }
}
