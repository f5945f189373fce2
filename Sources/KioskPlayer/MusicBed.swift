import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import Logging

/// The music bed's decoder (`audio_track`, README "A music bed across items"): one thread for
/// the player's life that decodes the bed's files in order, over and over, converts them to
/// the device's format and queues them for the writer, which mixes them under the items'
/// sound. Each file's samples follow the previous file's last one directly (the queue is
/// never flushed: the items' seeks and skips do not reach it), so the bed is gapless at its
/// own seams. A file that cannot be played is one log line and left out from then on; a bed
/// with no playable file is one line and silence.
final class MusicBed: @unchecked Sendable {
    // Immutable after init; the queue is thread-safe.
    let queue: PCMQueue
    let settings: MusicBedSettings
    private let logger: Logger

    init(settings: MusicBedSettings, format: AudioFormat, logger: Logger) {
        self.settings = settings
        self.logger = logger
        // Two seconds ahead (750 KiB of float stereo): rides over opening the next file, a
        // slow disk, and this thread waiting behind the decoders on a busy box. Half a second
        // ran dry for 0.2 to 0.7 s in 25 s in a starved VM guest (test_music_bed_aloop.py).
        queue = PCMQueue(format: format, capacity: MediaTime(value: 2, timescale: 1))
        for problem in settings.problems { logger.warning("audio_track: \(problem.message)") }
        WorkerThread.start(name: "kiosk-bed-decode", finishesBeforeExit: true) { [self] in run() }
    }

    /// Ends the thread (at its next push) and the writer's reads of the bed.
    func stop() { queue.close() }

    private func run() {
        var unplayable: Set<String> = []
        while true {
            var playedAny = false
            for file in settings.files where !unplayable.contains(file) {
                switch SoundFileFeed.queue(file, into: queue, itemTag: -1) {
                case .played: playedAny = true
                case .damaged(let reason), .failed(let reason):
                    // What decoded before any damage was heard; the file is left out from now on.
                    logger.warning("audio_track: \(reason); skipped")
                    unplayable.insert(file)
                case .stopped: return
                }
            }
            if !playedAny {
                logger.warning("audio_track: no playable sound file among \(settings.files.count); the music bed is silent")
                return
            }
        }
    }
}
