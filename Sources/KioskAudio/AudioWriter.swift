import Foundation
import KioskCore
import Logging

/// What the writer has done, for the stats overlay.
public struct AudioWriterStatistics: Sendable, Hashable {
    public var output = AudioOutputCounters()
    /// Silence written because the queue ran dry while playing (keeps the PCM running); with a
    /// music bed, the frames written with the bed alone.
    public var silenceFrames: Int64 = 0
    /// Why the output cannot play now; nil while it can.
    public var failure: AudioOutputError?
    /// Times the player paused the sound (a pause, or waiting for frames or an item).
    public var pauses = 0
    /// Times the item's sound was held while a music bed played on (waiting for frames).
    public var holds = 0
    /// Frames written with a music bed missing under them (its decoder was behind).
    public var bedMissingFrames: Int64 = 0
    /// Times what the device held was dropped (seeks, skips, failed items, the screen off).
    public var drops = 0
}

/// The body of the engine's audio writer thread: takes a period of converted samples off the
/// `PCMQueue`, applies volume and mute (as late as possible: a change is heard after the
/// device's buffer, ~40 ms, not after the half second queued upstream), writes them (blocking)
/// and reports the audio clock after each write.
///
/// The engine owns the thread and calls `run()` on it; any thread may call the controls. The
/// output is only touched by the writer thread: controls set flags it acts on within a
/// period. Mutable state is guarded by `control`'s lock, hence @unchecked Sendable.
public final class AudioWriter: @unchecked Sendable {
    public struct Options: Sendable, Hashable {
        /// Frames per write, as time (~ the device period).
        public var chunkTime: Double
        /// Length of the volume ramp: long enough not to click, short enough to be immediate.
        public var rampTime: Double
        /// Write silence when the queue runs dry and the device is about to, instead of letting
        /// it underrun, so the PCM keeps running across seams and decoder hiccups.
        public var keepAliveWithSilence: Bool

        public init(chunkTime: Double = 0.010, rampTime: Double = 0.005, keepAliveWithSilence: Bool = true) {
            self.chunkTime = chunkTime
            self.rampTime = rampTime
            self.keepAliveWithSilence = keepAliveWithSilence
        }
    }

    public let output: AudioOutput
    public let queue: PCMQueue
    /// The music bed's PCM (`audio_track`), mixed under whatever the item queue gives; never
    /// flushed here: the bed runs on across seeks, skips and seams.
    public let bed: PCMQueue?
    public let bedMix: MusicBedMix?
    /// Sound cues' PCM (an override's `sound`), mixed over the item's sound and the bed at the
    /// player's volume whenever it has frames; its owner flushes it, never the writer.
    public let cues: PCMQueue?
    public let options: Options
    private let format: AudioFormat
    private let logger: Logger
    private let control = NSCondition()
    // Guarded by `control`.
    private var stopRequested = false
    private var pauseRequested = false
    /// The item's sound is held (the player waits for frames) while the bed plays on.
    private var itemHeld = false
    private var flushRequested = false
    private var volume = 100
    private var muted = false
    private var bedVolume = 100
    private var bedMuted = false
    private var report: AudioClockReport?
    private var statistics = AudioWriterStatistics()
    private var reportHandler: (@Sendable (AudioClockReport) -> Void)?
    private var failureHandler: (@Sendable (AudioOutputError?) -> Void)?

    /// `output` must be configured already; `queue` holds samples in its format.
    /// `bed`: the music bed's samples, in the same format, heard at `bedMix`'s levels; `cues`:
    /// sound cues' samples, in the same format too.
    public init(output: AudioOutput, queue: PCMQueue, bed: PCMQueue? = nil, bedMix: MusicBedMix? = nil, cues: PCMQueue? = nil,
                options: Options = Options(), volume: Int = 100,
                isMuted: Bool = false, logger: Logger = Logger(label: "kiosk.audio")) {
        precondition(output.format == queue.format, "the queue must hold samples in the output's format")
        precondition(bed == nil || bed?.format == queue.format, "the bed must hold samples in the output's format")
        precondition(cues == nil || cues?.format == queue.format, "the cues must hold samples in the output's format")
        self.output = output
        self.queue = queue
        self.bed = bed
        self.bedMix = bed == nil ? nil : (bedMix ?? MusicBedMix(underItemSound: 1, fadeSeconds: 0, volume: 100))
        self.cues = cues
        self.options = options
        self.format = queue.format
        self.logger = logger
        self.volume = volume
        self.muted = isMuted
    }

    // MARK: Controls (any thread)

    /// Volume in percent (clamped to 0...100), heard within about the device buffer.
    public func setVolume(_ percent: Int) { command { volume = min(100, max(0, percent)) } }
    public func setMuted(_ isMuted: Bool) { command { muted = isMuted } }
    /// The player's volume and mute for the bed (an item's own level and mute are not the bed's).
    public func setBedLevel(volume: Int, isMuted: Bool) { command { bedVolume = volume; bedMuted = isMuted } }
    /// Stops the sound where it is: the device is paused, bed included (a user's pause).
    public func pause() { command { pauseRequested = true; itemHeld = false } }
    public func resume() { command { pauseRequested = false; itemHeld = false } }
    /// The player waits for frames or for an item to open: the item's sound stops with its
    /// clock (nothing more is taken from its queue), but a music bed is not the item's and
    /// plays on, written alone as under a silent item. Without a bed, the same as `pause()`.
    /// A starved guest waited for late frames again and again under silent clips, and the
    /// bed paused with each wait: 4 to 27 % of those windows had no bed (test_music_bed_aloop.py).
    public func holdItemSound() {
        command {
            if bed != nil && !itemHeld { statistics.holds += 1 }
            pauseRequested = bed == nil
            itemHeld = bed != nil
        }
    }

    /// Forgets what is queued here and in the device (seeks). The queue refuses chunks of the
    /// old generation from then on; the new generation is returned.
    @discardableResult
    public func flush() -> Int {
        let generation = queue.flush()
        command {
            flushRequested = true
            report = nil
        }
        return generation
    }

    /// Ends `run()` after the current write.
    public func stop() {
        command { stopRequested = true }
        queue.close()
    }

    /// The latest clock report; nil before the first write and after a flush.
    public var lastReport: AudioClockReport? { locked { report } }
    public var currentStatistics: AudioWriterStatistics { locked { statistics } }

    /// Called on the writer thread after every write of media samples.
    public func onReport(_ handler: @escaping @Sendable (AudioClockReport) -> Void) { locked { reportHandler = handler } }
    /// Called on the writer thread when the output fails or plays again.
    public func onFailureChange(_ handler: @escaping @Sendable (AudioOutputError?) -> Void) { locked { failureHandler = handler } }

    // MARK: The writer thread

    public func run() {
        let chunkFrames = max(1, Int(Double(format.sampleRate) * options.chunkTime))
        let rampFrames = max(1, Int(Double(format.sampleRate) * options.rampTime))
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkFrames * format.bytesPerFrame, alignment: 16)
        defer { scratch.deallocate() }
        var gain = SoftwareGain(gain: locked { SoftwareGain.linearGain(volume: volume, isMuted: muted) }, rampFrames: rampFrames)
        var isPaused = false
        var hasPlayed = false
        var knownFailure: AudioOutputError? = nil
        // Gaps in the sound (padding silence, underruns) so far: the first report after one
        // tells the clock to jump rather than glide (AudioClockReport.gaps).
        // Only gaps inside an item count: where one item's sound follows another's (or a silent
        // item's padding), the new item's clock starts from its own first report anyway.
        var gaps = 0
        var paddedSinceMedia = false
        var underrunsSeen = output.counters.underruns
        var lastTag: Int? = nil
        // Whether the last period written carried the item's sound: a hold keeps the bed at
        // the level it had (ducked under an item with sound that waits), rather than raising it.
        var itemSounded = false
        var bedMixer = bed.map { BedMixer(queue: $0, mix: bedMix!, chunkFrames: chunkFrames, rampFrames: rampFrames) }
        defer { bedMixer?.deallocate() }
        // A cue is heard over everything at one level: a bed that never ducks.
        var cueMixer = cues.map { BedMixer(queue: $0, mix: MusicBedMix(underItemSound: 1, fadeSeconds: 0, volume: 100),
                                           chunkFrames: chunkFrames, rampFrames: rampFrames) }
        defer { cueMixer?.deallocate() }
        // Silence need only keep the device from running dry; a bed is heard, and a device
        // underrun is a gap in it, so it is written like an item's sound: as soon as there is
        // room (the wait for room paces the loop), without waiting a period for the item's
        // samples or for the device's delay to fall (a starved guest underran 20 to 50 times in
        // 25 s that way: test_music_bed_aloop.py). An item's next samples are queued well
        // ahead at a seam, so they are never passed over for the bed there.
        // A cue waiting is written like the bed, as soon as there is room.
        let itemWait = bed == nil ? options.chunkTime : 0

        while true {
            let (stop, pauseAsked, flush) = locked {
                defer { flushRequested = false }
                return (stopRequested, pauseRequested, flushRequested)
            }
            if stop { break }
            // A sound cue (an alarm over an override's card) plays on through a pause or a wait
            // for frames: the device runs for it while the item's sound is held.
            let cueWaits = (cues?.queuedFrames ?? 0) > 0
            let wantPaused = pauseAsked && !cueWaits
            if flush {
                perform("drop") { try output.drop() }
                locked { statistics.drops += 1 }
                hasPlayed = false
                paddedSinceMedia = false
            }
            if wantPaused != isPaused {
                perform(wantPaused ? "pause" : "resume") { wantPaused ? try output.pause() : try output.resume() }
                isPaused = wantPaused
                if wantPaused { locked { statistics.pauses += 1 } }
            }
            if isPaused {
                control.lock()
                if pauseRequested && !stopRequested && !flushRequested { _ = control.wait(until: Date(timeIntervalSinceNow: 0.05)) }
                control.unlock()
                continue
            }
            // Room first, then samples and volume: the gain applied is at most a period old when
            // the samples enter the device. A device failing here fails the write below too.
            try? output.waitForRoom(frames: chunkFrames, timeout: 4 * options.chunkTime)
            gain.setTarget(locked { SoftwareGain.linearGain(volume: volume, isMuted: muted) })
            let held = locked { itemHeld } || pauseAsked
            if !cueWaits { cueMixer?.setLevel(locked { cueLevel }) }
            if !held, let slice = queue.pop(maxFrames: chunkFrames, into: scratch, timeout: cueWaits ? 0 : itemWait) {
                let bytes = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(slice.frameCount * format.bytesPerFrame)])
                gain.apply(to: bytes, format: format.sampleFormat, channels: format.channels)
                bedMixer?.mix(into: bytes, itemSounds: true, level: locked { bedLevel })
                if cueWaits { cueMixer?.mix(into: bytes, itemSounds: true, level: locked { cueLevel }) }
                if write(UnsafeRawBufferPointer(bytes)) {
                    let underruns = output.counters.underruns
                    if hasPlayed && slice.itemTag == lastTag && (paddedSinceMedia || underruns > underrunsSeen) { gaps += 1 }
                    underrunsSeen = underruns
                    lastTag = slice.itemTag
                    paddedSinceMedia = false
                    hasPlayed = true
                    itemSounded = true
                    publish(slice, gaps: gaps)
                }
            } else if options.keepAliveWithSilence && (bedMixer != nil || cueWaits || (hasPlayed && output.delayFrames <= 2 * chunkFrames))
                        && !locked({ stopRequested }) {
                // Only when the device is about to run dry (less than two chunks left, one of
                // which the next wait may take): samples arriving a little late must not be
                // pushed back behind silence the device did not need. With a music bed this
                // "silence" is the bed at full level (a silent item, a still, a gap).
                scratch.initializeMemory(as: UInt8.self, repeating: 0)
                if !held { itemSounded = false }
                bedMixer?.mix(into: scratch, itemSounds: held && itemSounded, level: locked { bedLevel })
                if cueWaits { cueMixer?.mix(into: scratch, itemSounds: true, level: locked { cueLevel }) }
                if write(UnsafeRawBufferPointer(scratch)) {
                    paddedSinceMedia = true
                    locked { statistics.silenceFrames += Int64(chunkFrames) }
                }
            }
            if let missing = bedMixer?.missingFrames { locked { statistics.bedMissingFrames = missing } }
            let failure = output.failure
            if failure != knownFailure {
                knownFailure = failure
                let handler = locked { statistics.failure = failure; return failureHandler }
                handler?(failure)
            }
        }
        locked { statistics.output = output.counters }
    }

    /// Writes to the output; a failure that the output does not absorb itself (a bare
    /// `PCMSink`: `RetryingAudioOutput` never throws) is logged once and the samples are
    /// dropped at the pace they would have played, so the pipeline keeps its timing.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do {
            try output.write(bytes)
            locked { statistics.output = output.counters }
            return true
        } catch {
            let failure = (error as? AudioOutputError) ?? .writeFailed(device: output.deviceName, reason: "\(error)")
            let isNew = locked { () -> Bool in
                defer { statistics.failure = failure; statistics.output = output.counters }
                return statistics.failure != failure
            }
            if isNew { logger.error("\(failure); playing on without sound") }
            Thread.sleep(forTimeInterval: Double(bytes.count / format.bytesPerFrame) / Double(format.sampleRate))
            return false
        }
    }

    private func publish(_ slice: PCMSlice, gaps: Int) {
        let report = AudioClockReport(endTime: slice.endTime(sampleRate: format.sampleRate), delayFrames: output.delayFrames,
                                      sampleRate: format.sampleRate, rate: slice.rate,
                                      hostTime: MonotonicClock.hostTime(), itemTag: slice.itemTag,
                                      gaps: gaps)
        let handler: (@Sendable (AudioClockReport) -> Void)? = locked {
            // A flush since the slice was taken makes it stale: its time is not the clock's.
            guard slice.generation == queue.generation, !flushRequested else { return nil }
            self.report = report
            return reportHandler
        }
        handler?(report)
    }

    /// A cue's gain: the player's volume and mute (an item's own level is not the cue's); guarded.
    private var cueLevel: Double { SoftwareGain.linearGain(volume: bedVolume, isMuted: bedMuted) }

    /// The bed's gain from the player's volume and mute and the bed's own volume; guarded.
    private var bedLevel: Double {
        SoftwareGain.linearGain(volume: bedVolume, isMuted: bedMuted) * Double(bedMix?.volume ?? 100) / 100
    }

    private func perform(_ what: String, _ call: () throws -> Void) {
        do { try call() } catch { logger.debug("audio \(what) on '\(output.deviceName)': \(error)") }
    }

    /// Changes control state and wakes a paused writer to act on it.
    private func command(_ body: () -> Void) {
        control.lock()
        body()
        control.broadcast()
        control.unlock()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        control.lock()
        defer { control.unlock() }
        return try body()
    }
}
