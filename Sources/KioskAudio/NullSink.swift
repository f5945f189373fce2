import KioskCore

/// A sound device that plays nothing but keeps time like one: written frames are "heard" in
/// real time by the host clock, `write` blocks while its virtual buffer is full, and `delay`
/// says how much is still queued. Benchmarks and engine tests run at real speed with it, and
/// `RetryingAudioOutput` keeps the pipeline paced with one while the real device is gone.
public final class NullSink: AudioOutput {
    public let deviceName: String
    public private(set) var format: AudioFormat?
    public private(set) var counters = AudioOutputCounters()
    public var failure: AudioOutputError? { nil }
    /// How much sound the virtual device holds before `write` blocks.
    public let bufferTime: Double
    private let clock: HostClock
    /// Host time at which everything written so far will have been heard.
    private var queueEnd = 0.0
    /// Seconds still queued when paused; nil while playing.
    private var pausedRemaining: Double?

    public init(name: String = "null", bufferTime: Double = 0.040, clock: HostClock = MonotonicClock()) {
        deviceName = name
        self.bufferTime = bufferTime
        self.clock = clock
    }

    /// Takes any format as it is.
    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        format = requested
        queueEnd = clock.now()
        pausedRemaining = nil
        return requested
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws {
        guard let format else { throw AudioOutputError.notConfigured(device: deviceName) }
        let frameCount = frames.count / format.bytesPerFrame
        guard frameCount > 0 else { return }
        if let remaining = pausedRemaining {
            // Writing while paused queues without playing, as a paused PCM would.
            pausedRemaining = remaining + Double(frameCount) / Double(format.sampleRate)
        } else {
            let now = clock.now()
            if queueEnd < now {
                if counters.framesWritten > 0 && now - queueEnd > 0.001 { counters.underruns += 1 }
                queueEnd = now
            }
            queueEnd += Double(frameCount) / Double(format.sampleRate)
            let wait = queueEnd - now - bufferTime
            if wait > 0 { clock.sleep(seconds: wait) }
        }
        counters.framesWritten += Int64(frameCount)
    }

    public func waitForRoom(frames: Int, timeout: Double) throws {
        guard let format, pausedRemaining == nil else { return }
        let wait = queueEnd - clock.now() + Double(frames) / Double(format.sampleRate) - bufferTime
        if wait > 0 { clock.sleep(seconds: min(wait, timeout)) }
    }

    public var delayFrames: Int {
        guard let format else { return 0 }
        let seconds = pausedRemaining ?? max(0, queueEnd - clock.now())
        return Int((seconds * Double(format.sampleRate)).rounded())
    }

    public func pause() throws {
        guard pausedRemaining == nil else { return }
        pausedRemaining = max(0, queueEnd - clock.now())
    }

    public func resume() throws {
        guard let remaining = pausedRemaining else { return }
        queueEnd = clock.now() + remaining
        pausedRemaining = nil
    }

    public func drop() throws {
        queueEnd = clock.now()
        if pausedRemaining != nil { pausedRemaining = 0 }
    }

    public func drain() throws {
        if pausedRemaining != nil { try resume() }
        clock.sleep(seconds: queueEnd - clock.now())
    }

    public func recover() throws {}

    public func close() {}
}
