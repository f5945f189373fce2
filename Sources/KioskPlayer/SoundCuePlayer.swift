import Foundation
import KioskAudio
import KioskCore
import KioskMedia
import Logging

/// Sound cues (`PlayerRequest.soundCue`: an override's `sound`, an alarm tone over a card):
/// a file decoded on a thread of its own into a queue the audio writer mixes over the items'
/// sound and the music bed, at the player's volume. The queue's generation is the cue's: a new
/// cue or a stop flushes it, which ends the older cue's thread at its next push and silences
/// it within the device's buffer (~40 ms), whatever the items do meanwhile.
final class SoundCuePlayer: @unchecked Sendable {
    // Immutable after init; the queue is thread-safe.
    let queue: PCMQueue
    private let logger: Logger

    init(format: AudioFormat, logger: Logger) {
        self.logger = logger
        // Half a second ahead: rides over the writer's periods and a busy box; a cue stopped
        // drops what is queued, so more would only be decoded for nothing.
        queue = PCMQueue(format: format, capacity: MediaTime(value: 1, timescale: 2))
    }

    /// Plays `cue` from its start in place of any cue heard now; nil only stops that one.
    func play(_ cue: SoundCue?) {
        let generation = queue.flush()
        guard let cue else { return }
        WorkerThread.start(name: "kiosk-sound-cue") { [self] in run(cue, generation: generation) }
    }

    /// Ends every cue's thread (at its next push) and the writer's reads of the queue.
    func close() { queue.close() }

    private func run(_ cue: SoundCue, generation: Int) {
        var damageSaid = false
        repeat {
            switch SoundFileFeed.queue(cue.path, into: queue, generation: generation, itemTag: -2) {
            case .played: continue
            case .damaged(let reason):
                // What decoded before the damage is heard (again, looped); said once.
                if !damageSaid { logger.warning("sound cue: \(reason); heard up to there") }
                damageSaid = true
            case .stopped: return
            case .failed(let reason):
                // Said once per request; a looping cue is not tried again and again.
                logger.warning("sound cue: \(reason); not heard")
                return
            }
        } while cue.loops && queue.generation == generation
    }
}
