import Foundation
import KioskAudio
import KioskCore
import Logging

/// The engine's sound (DESIGN.md, "Audio"): one output and one writer thread for the whole
/// playlist, so the PCM never drains between items, and a feeder thread that moves each item's
/// converted sound into the writer's queue in play order. The next item's sound follows the
/// current one's last sample directly: a seam has no gap in the sound.
final class AudioPath: @unchecked Sendable {
    // Shared state: `order` and `feeding` are guarded by `lock`; the writer and the queue are
    // thread-safe; the output is touched only by the writer thread after `init`.
    let format: AudioFormat
    let writer: AudioWriter
    private let queue: PCMQueue
    private let lock = NSCondition()
    /// Items in play order: the current one first, then the one prepared to follow it.
    private var order: [ItemPipeline] = []
    private var stopped = false
    /// Counts flushes, so the feeder forgets which items' sound it had finished.
    private var flushes = 0
    /// The writer's gap count as of the last `heardTime` answer.
    private var gapsSeen = 0
    private let logger: Logger
    private let output: AudioOutput
    private let writerThread = WorkerThread(name: "kiosk-audio-write", qos: .userInteractive)
    /// The music bed's decoder, when kiosk.conf has an `audio_track`; the writer mixes its queue in.
    private let bed: MusicBed?
    /// Sound cues heard over everything (an override's `sound`); the writer mixes its queue in.
    let cues: SoundCuePlayer

    /// Opens `output` for 48 kHz stereo (it says what it really took) and starts the threads.
    /// `musicBed`: a bed to play under the items, decoded on a thread of its own.
    init(output: AudioOutput, volume: Int, isMuted: Bool, musicBed: MusicBedSettings? = nil, logger: Logger) throws {
        let format = try output.configure(.stereo48k)
        self.format = format
        queue = PCMQueue(format: format, capacity: MediaTime(value: 1, timescale: 4))
        bed = musicBed.map { MusicBed(settings: $0, format: format, logger: logger) }
        cues = SoundCuePlayer(format: format, logger: logger)
        writer = AudioWriter(output: output, queue: queue, bed: bed?.queue, bedMix: musicBed?.mix, cues: cues.queue,
                             volume: volume, isMuted: isMuted, logger: logger)
        self.logger = logger
        self.output = output
        writerThread.start { [writer, logger] in
            switch RealtimeScheduling.raiseCurrentThread() {
            case .raised(let priority): logger.debug("audio: the writer thread runs at real-time priority \(priority) (SCHED_FIFO)")
            case .refused(let reason):
                logger.info("audio: the writer thread keeps normal scheduling (real-time refused: \(reason)); under load the device may underrun. kiosk.service allows it with LimitRTPRIO=")
            }
            writer.run()
        }
        WorkerThread.start(name: "kiosk-audio-feed") { [self] in feed() }
    }

    /// The presenter says which items play next, current first.
    func setOrder(_ pipelines: [ItemPipeline]) {
        lock.withLock {
            order = pipelines
            lock.broadcast()
        }
    }

    /// Forgets the sound queued anywhere (a seek, a skip): what is fed next starts afresh.
    /// `newOrder`: a skip's items, set in the same step as the flush. Set after it, the feeder
    /// could take one more chunk of the old item into the flushed queue (heard after the skip);
    /// set before it, the flush could drop the new item's first chunk.
    func flush(thenPlay newOrder: [ItemPipeline]? = nil) {
        lock.withLock {
            flushes += 1
            writer.flush()
            if let newOrder {
                order = newOrder
                lock.broadcast()
            }
        }
    }

    func stop() {
        lock.withLock {
            stopped = true
            lock.broadcast()
        }
        writer.stop()
        bed?.stop()
        cues.close()
        // The device (or recording) is closed only once the writer is done with it: a WAV
        // recording gets its sizes written, an ALSA PCM is released for the next user.
        // Short: at SIGTERM the process must be gone within a second, and the kernel releases
        // a PCM left open anyway; a recording's writer is never blocked by a device.
        if writerThread.join(timeout: 0.25) {
            if bed != nil {
                // Where a bed has gaps, this tells the device's underruns from the player's pauses.
                let statistics = writer.currentStatistics
                let underruns = statistics.output.underruns, pauses = statistics.pauses, drops = statistics.drops
                logger.notice("audio_track: the device underran \(underruns) time(s); the player paused the sound \(pauses) time(s), held the item's sound under the bed \(statistics.holds) time(s) and dropped what the device held \(drops) time(s); the bed's decoder was behind for \(statistics.bedMissingFrames) frame(s)")
            }
            output.close()
        } else {
            logger.notice("sound: the writer did not stop within 0.25 s; leaving \(output.deviceName) to the exit")
        }
    }

    /// What is heard now, for the master clock, if it belongs to the item tagged `tag` and is
    /// not before `start` (around a seam the device may still play the previous item's end).
    /// `afterGap`: the sound had a gap (padding silence, an underrun) since the last time this
    /// said what is heard, so the clock should jump to it (PlaybackClock.observeAudio).
    func heardTime(ofItem tag: Int, notBefore start: MediaTime) -> (heard: MediaTime, host: MediaTime, afterGap: Bool)? {
        guard let report = writer.lastReport, report.itemTag == tag else { return nil }
        let heard = report.heardTime
        guard heard >= start else { return nil }
        let afterGap = lock.withLock { () -> Bool in
            defer { gapsSeen = report.gaps }
            return report.gaps > gapsSeen
        }
        return (heard, report.hostTime, afterGap)
    }

    // MARK: The feeder thread

    private func feed() {
        var finished: Set<ObjectIdentifier> = []
        var seenFlushes = 0
        while true {
            guard let (source, queueGeneration) = nextSource(skipping: &finished, seenFlushes: &seenFlushes) else { return }
            switch source.audio.pop(timeout: 0.05) {
            case .chunk(var chunk, let generation)?:
                guard generation == source.currentGeneration else { continue }
                let envelope = source.soundEnvelope   // a transition's fade (SeamTransitions)
                if !envelope.isEmpty { envelope.apply(to: &chunk, format: format) }
                // The writer queue's generation when the source was chosen: a flush since (a
                // skip, a seek) refuses this chunk, which belongs to what was cut.
                _ = queue.push(chunk, generation: queueGeneration)
            case .end(let generation)?:
                if generation == source.currentGeneration { finished.insert(ObjectIdentifier(source)) }
            case nil:
                // Nothing yet, or no sound at all: a closed queue with no end marker means the
                // item has none (or was closed); move past it only once it is the current one's
                // follower and the current one has finished.
                if source.audio.isClosed { finished.insert(ObjectIdentifier(source)) }
            }
        }
    }

    /// The item whose sound goes next: the current one until its sound has ended, then the
    /// following one, but only when the current one had sound of its own (after a silent
    /// item the next one's sound waits until it is on screen).
    /// With it, the writer queue's generation in the same step (flushes take this lock too).
    private func nextSource(skipping finished: inout Set<ObjectIdentifier>, seenFlushes: inout Int) -> (ItemPipeline, Int)? {
        lock.lock(); defer { lock.unlock() }
        while !stopped {
            if seenFlushes != flushes {
                // A seek back into an item whose sound had ended: it has sound to give again.
                seenFlushes = flushes
                finished.removeAll()
            }
            let live = Set(order.map(ObjectIdentifier.init))
            finished.formIntersection(live)
            if let current = order.first {
                if !finished.contains(ObjectIdentifier(current)) { return (current, queue.generation) }
                if current.hasAudio, order.count > 1, !finished.contains(ObjectIdentifier(order[1])) {
                    return (order[1], queue.generation)
                }
            }
            _ = lock.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        return nil
    }
}
