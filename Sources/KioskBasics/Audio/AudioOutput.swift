/// Why an audio device cannot play, in one line an integrator can act on.
public enum AudioOutputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device could not be opened: unknown name, no card, busy, no permission.
    case unavailable(device: String, reason: String)
    /// The device opened but takes none of the formats kiosk can write.
    case unsupportedFormat(device: String, reason: String)
    /// The device went away while playing (USB unplugged, HDMI gone: -ENODEV).
    case disconnected(device: String, reason: String)
    /// Writing failed and could not be recovered.
    case writeFailed(device: String, reason: String)
    /// `write` before `configure`, or after `close`.
    case notConfigured(device: String)

    public var device: String {
        switch self {
        case .unavailable(let device, _), .unsupportedFormat(let device, _), .disconnected(let device, _),
             .writeFailed(let device, _), .notConfigured(let device):
            return device
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let device, let reason): return "audio device '\(device)': cannot open: \(reason)"
        case .unsupportedFormat(let device, let reason): return "audio device '\(device)': \(reason)"
        case .disconnected(let device, let reason): return "audio device '\(device)' went away: \(reason)"
        case .writeFailed(let device, let reason): return "audio device '\(device)': write failed: \(reason)"
        case .notConfigured(let device): return "audio device '\(device)' is not configured"
        }
    }
}

/// What happened on an output since it was created: the numbers the stats overlay shows.
public struct AudioOutputCounters: Sendable, Hashable, Codable {
    public var framesWritten: Int64 = 0
    /// Buffer underruns (-EPIPE) recovered: each is an audible gap.
    public var underruns = 0
    /// Suspends (-ESTRPIPE, system sleep) recovered.
    public var suspends = 0
    /// Times the device failed (went away or could not be opened) and sound stopped.
    public var failures = 0
    /// Times a failed device was opened again.
    public var reopens = 0

    public init() {}
}

/// A sound device kiosk writes to: ALSA, or a null/file sink for tests and benchmarks. In the
/// spirit of mpv's audio-output drivers, the engine only sees this.
///
/// An output is driven by one thread (the engine's audio writer thread): none of these calls
/// may be made concurrently. The writer thread's own controls (`AudioWriter`) are what other
/// threads call.
public protocol AudioOutput: AnyObject {
    /// The name it was opened by (`default`, `hw:0,0`, a file path...), for log lines.
    var deviceName: String { get }
    /// The negotiated format, nil before `configure` succeeded.
    var format: AudioFormat? { get }
    /// Opens the device for `requested` (a preference) and returns what was negotiated; the
    /// caller converts to that. Throws `AudioOutputError`.
    func configure(_ requested: AudioFormat) throws -> AudioFormat
    /// Queues interleaved frames in the negotiated format; blocks until all are queued (at
    /// most about a period while the device plays). Underruns and suspends are recovered
    /// inside, and counted. Throws `AudioOutputError` when the device is lost.
    func write(_ frames: UnsafeRawBufferPointer) throws
    /// Waits until `frames` frames fit without blocking, or `timeout` seconds pass. The writer
    /// calls it before taking samples off its queue and applying the volume, so those samples
    /// go straight into the device instead of waiting a period in front of it.
    func waitForRoom(frames: Int, timeout: Double) throws
    /// Frames written but not heard yet (snd_pcm_delay): the audio clock is the pts of the
    /// last written sample minus this.
    var delayFrames: Int { get }
    /// Stops playing, keeping what is queued.
    func pause() throws
    /// Plays on from where `pause` stopped.
    func resume() throws
    /// Forgets everything queued (seeks, item changes that must cut at once).
    func drop() throws
    /// Plays what is queued to the end, then returns (end of playback, tests).
    func drain() throws
    /// Brings the device back to a writable state after an error `write` did not recover
    /// from by itself; throws when it is gone.
    func recover() throws
    var counters: AudioOutputCounters { get }
    /// Why the device cannot play now, nil while it can. A failed output makes the engine
    /// fall back to the monotonic clock.
    var failure: AudioOutputError? { get }
    /// Releases the device. Safe to call twice.
    func close()
}

extension AudioOutput {
    /// Queues frames from a byte array (tests, small writers).
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}

/// The audio clock's input, reported after every write: what was just queued and how much of
/// the device's queue is still to be heard, measured at `hostTime` (CLOCK_MONOTONIC).
public struct AudioClockReport: Sendable, Hashable {
    /// Media time just after the last sample written.
    public var endTime: MediaTime
    /// Frames queued in the device and not heard yet when measured.
    public var delayFrames: Int
    public var sampleRate: Int
    /// Media seconds per played second for these samples (the tempo rate).
    public var rate: Rational
    public var hostTime: MediaTime
    /// The engine's tag for the item the samples came from (seams: the next item's tag
    /// shows up once its first samples are written).
    public var itemTag: Int
    /// Gaps in the sound so far (silence padded in, or an underrun), counted by the writer. A
    /// report with a higher count than the last one seen follows a gap: the audio stood still
    /// for the gap while host time ran on, so the clock should jump to it, not glide. Padding
    /// silence still in the device counts in `delayFrames` on purpose: it is host time that
    /// passes without media time, so `heardTime` is where the line through the next media
    /// sample stands now, the line the clock should run on.
    public var gaps: Int

    public init(endTime: MediaTime, delayFrames: Int, sampleRate: Int, rate: Rational, hostTime: MediaTime, itemTag: Int,
                gaps: Int = 0) {
        self.endTime = endTime
        self.delayFrames = delayFrames
        self.sampleRate = sampleRate
        self.rate = rate
        self.hostTime = hostTime
        self.itemTag = itemTag
        self.gaps = gaps
    }

    /// The media time being heard at `hostTime`: the master clock's observation.
    public var heardTime: MediaTime {
        endTime - MediaTime(value: Int64(delayFrames), timescale: Int32(sampleRate)) * rate
    }
}
