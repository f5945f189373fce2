import Foundation
import KioskCore
import KioskPlayer
import KioskService
import Logging

/// `kiosk bench --seek N`: seek latency as the engine itself times it. Plays the media in real
/// time on a headless 60 Hz display (looping, so a seek never meets the end), seeks N times
/// through QueuePlayer's API to positions spread over the clip in a jumping order, and times
/// each from the request (CLOCK_MONOTONIC when `seek(to:)` is called) to the flip of the first
/// frame of the new position (the stats file's `t`, the same clock). A flip waits for the
/// display's next refresh, as on a screen: up to 16.7 ms of the latency is that wait.
enum SeekBench {
    struct Seek {
        let target: Double
        let requested: Double
        var latency: Double?
    }

    static func run(media: String, size: PixelSize, gravity: VideoGravity, threads: Int, seeks count: Int,
                    audio: String, logger: Logger) throws -> [Seek] {
        let item = ItemConfig(source: ItemSource.classify(media, baseDirectory: FileManager.default.currentDirectoryPath,
                                                          fileSystem: LocalFileSystem()),
                              location: SourceLocation(file: "argument 1", line: 0, column: 0))
        let entries = PlaylistExpander().expand([item]).entries
        guard !entries.isEmpty else { throw RuntimeFailure("\(media): nothing to play") }
        let stats = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-seek-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: stats) }
        var settings = PlayerSettings()
        settings.display.target = .headless(size, refreshRate: 60)
        settings.playback.gravity = gravity
        settings.decoderThreads = .fixed(threads)
        settings.statsPath = stats
        settings.audio.device = AudioOpener.parse(audio)
        let sound = AudioOpener.open(settings.audio.device, logger: logger)
        let player = try QueuePlayer(output: try DisplayOpener.open(&settings, logger: logger),
                                     playlist: PlaylistCursor(entries: entries, loopMode: .playlist),
                                     settings: settings, audioOutput: sound, logger: logger)
        player.start()
        defer { player.stop() }
        // Playing, with a known duration, for half a second: the start-up is not a seek.
        let deadline = MonotonicClock().now() + 10
        while (player.framesPresented == 0 || player.duration == nil) && MonotonicClock().now() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        guard let duration = player.duration?.seconds, duration > 1.5 else {
            throw RuntimeFailure("\(media): needs a clip of known duration longer than 1.5 s to seek in")
        }
        Thread.sleep(forTimeInterval: 0.5)
        var done: [Seek] = []
        for index in 0..<count {
            // Positions spread over the clip, visited in a jumping order (forward and back).
            let slot = (index * 7 + 3) % count
            let target = ((Double(slot) + 0.5) / Double(count) * (duration - 1.0) * 1000).rounded() / 1000
            let shown = player.framesPresented
            let requested = MonotonicClock().now()
            player.send(.seek(to: MediaTime(value: Int64(target * 1000), timescale: 1000)))
            done.append(Seek(target: target, requested: requested))
            // Frames of the old position are dropped once the seek is taken: a few flips mean the
            // new position is on screen. Then play on a little, as a person would watch.
            while player.framesPresented < shown + 3 && MonotonicClock().now() < requested + 10 {
                Thread.sleep(forTimeInterval: 0.005)
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
        player.stop()
        return try match(done, statsFile: stats)
    }

    private struct Record: Decodable {
        let t: Double
        let pts: Double
        let gen: Int
        let video: Bool
    }

    /// For each seek, the first video frame flipped after the request that belongs to the new
    /// position: a newer decoder generation and a pts at or just after the target.
    private static func match(_ seeks: [Seek], statsFile: String) throws -> [Seek] {
        let text = try String(contentsOfFile: statsFile, encoding: .utf8)
        let decoder = JSONDecoder()
        let records = text.split(separator: "\n").compactMap { try? decoder.decode(Record.self, from: Data($0.utf8)) }
        return seeks.map { seek in
            var seek = seek
            let generationBefore = records.last { $0.t < seek.requested }?.gen ?? 0
            if let first = records.first(where: { $0.t >= seek.requested && $0.video && $0.gen != generationBefore
                                                  && $0.pts >= seek.target - 0.05 && $0.pts <= seek.target + 0.5 }) {
                seek.latency = first.t - seek.requested
            }
            return seek
        }
    }
}
