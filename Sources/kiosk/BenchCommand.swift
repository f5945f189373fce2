import ArgumentParser
import Foundation
import KioskCore
import KioskDisplay
import KioskMedia
import KioskPlayer
import KioskService

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Play a file through the engine untimed: every frame decoded, scaled and flipped as fast as possible into headless display buffers.")

    @Argument(help: "A media file or URL.")
    var media: String

    @Option(help: "Screen size, WxH.")
    var size: PixelSize = PixelSize(width: 1280, height: 800)

    @Option(help: "fit, fill or stretch.")
    var gravity: VideoGravity = .fit

    @Option(help: "Stop after this many frames (default: all).")
    var frames: Int?

    @Option(help: "Decoder threads; 0 lets FFmpeg choose.")
    var threads: Int = 0

    @Option(help: "Interlaced video: auto (frames flagged interlaced woven whole with bwdif), on (every frame) or off.")
    var deinterlace: Deinterlacing = .auto

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "Instead: play in real time and seek this many times, printing each seek's latency.")
    var seek: Int?

    @Option(help: "With --seek: an ALSA PCM, null (kiosk's real-time null sink) or none.")
    var audio: String = "none"

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let frames, frames <= 0 { throw ValidationError("--frames must be 1 or more") }
        try checkScreenSize(size, option: "--size")
        if threads < 0 { throw ValidationError("--threads must be 0 or more") }
        if let seek, seek <= 0 { throw ValidationError("--seek must be 1 or more") }
    }

    func run() throws {
        let logger = common.makeLogger()
        if let seek {
            let seeks = try SeekBench.run(media: media, size: size, gravity: gravity, threads: threads, seeks: seek,
                                          audio: audio, logger: logger)
            for (index, seek) in seeks.enumerated() {
                let latency = seek.latency.map { String(format: "%.1f ms", $0 * 1000) } ?? "no frame of the new position"
                print("seek \(index + 1) to " + String(format: "%.3f s: ", seek.target) + latency)
            }
            let latencies = seeks.compactMap(\.latency).sorted()
            if !latencies.isEmpty {
                print(String(format: "seek latency ms: median %.1f max %.1f (%d of %d seeks)",
                             latencies[latencies.count / 2] * 1000, latencies.last! * 1000, latencies.count, seeks.count))
            }
            if latencies.count != seeks.count { throw RuntimeFailure("\(seeks.count - latencies.count) seeks showed no frame") }
            return
        }
        let display = HeadlessDisplay(size: size, paced: false)
        let race = try EngineRace.run(media: media, display: display, gravity: gravity, threads: threads, limit: frames,
                                      deinterlace: deinterlace, logger: logger)
        let count = race.frames, seconds = race.seconds
        let rate = seconds > 0 ? Double(count) / seconds : 0
        if json {
            let result: [String: Double] = ["frames": Double(count), "seconds": seconds, "fps": rate,
                                            "first_frame_seconds": race.firstFrameSeconds ?? 0]
            let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "frames: %d\nseconds: %.3f\nframes/s: %.1f", count, seconds, rate))
        }
    }
}
