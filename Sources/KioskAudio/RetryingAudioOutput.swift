import KioskCore
import Logging

/// A sound device that may not be there: keeps playback going when it cannot be opened, is
/// busy, or goes away mid-play, and picks it up again when it comes back.
///
/// While the device is missing, samples go to a `NullSink` that consumes them in real time, so
/// the pipeline keeps its pace; `failure` says why there is no sound, which tells the engine to
/// follow the monotonic clock. The device is tried again after 1 s, 2 s, 4 s ... up to 30 s
/// (`RetryBackoff`), from `write`, on the writer thread. A device that comes back is opened
/// for the format first negotiated (letting ALSA convert if it must), so the samples the
/// engine already converted stay valid. The loss is logged once as a warning, the return as a
/// notice; the retries in between only at debug level.
public final class RetryingAudioOutput: AudioOutput {
    /// Makes an unconfigured output. `keeping` is nil for the first open, and the format the
    /// reopened device must play for later ones.
    public typealias Factory = (_ keeping: AudioFormat?) -> AudioOutput

    public let deviceName: String
    public private(set) var format: AudioFormat?
    public private(set) var failure: AudioOutputError?
    private let makeOutput: Factory
    private let clock: HostClock
    private let logger: Logger
    private let backoff: RetryBackoff
    /// Attempts that failed since the device last played.
    private var failedAttempts = 0
    /// Whether "the device is back but in another format" was said since it last played: it
    /// is worth a warning (the configuration must change), but once, not every 30 s.
    private var reportedFormatMismatch = false
    private var device: AudioOutput?
    private let standIn: NullSink
    private var nextAttempt = 0.0
    private var own = AudioOutputCounters()
    /// Counters of devices closed after failing, so the totals survive reopening.
    private var retired = AudioOutputCounters()

    public init(deviceName: String, clock: HostClock = MonotonicClock(), backoff: RetryBackoff = RetryBackoff(),
                logger: Logger = Logger(label: "kiosk.audio"), makeOutput: @escaping Factory) {
        self.deviceName = deviceName
        self.clock = clock
        self.backoff = backoff
        self.logger = logger
        self.makeOutput = makeOutput
        standIn = NullSink(name: "\(deviceName) (missing)", clock: clock)
    }

    /// An ALSA device by name, with ALSA's conversions allowed on reopening.
    public convenience init(alsaDevice: String, options: PCMSink.Options = PCMSink.Options(),
                            logger: Logger = Logger(label: "kiosk.audio")) {
        self.init(deviceName: alsaDevice, logger: logger) { keeping in
            var reopenOptions = options
            if keeping != nil { reopenOptions.conversions = .allowConversions }
            return PCMSink(device: alsaDevice, options: reopenOptions)
        }
    }

    deinit { close() }

    public var isDeviceOpen: Bool { device != nil }

    /// Seconds until the next attempt to reopen, nil while the device plays.
    public var secondsUntilRetry: Double? { device == nil ? max(0, nextAttempt - clock.now()) : nil }

    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        close()
        failedAttempts = 0
        let candidate = makeOutput(nil)
        do {
            let negotiated = try candidate.configure(requested)
            device = candidate
            format = negotiated
            failure = nil
            return negotiated
        } catch {
            candidate.close()
            // Play on without sound, in the format asked for: the device, when it comes, is
            // opened for that.
            format = requested
            lose(error, retiring: nil)
            return requested
        }
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws {
        guard format != nil else { throw AudioOutputError.notConfigured(device: deviceName) }
        if device == nil, clock.now() >= nextAttempt { reopen() }
        if let device {
            do {
                try device.write(frames)
                return
            } catch {
                lose(error, retiring: device)
            }
        }
        try standIn.write(frames)
    }

    public func waitForRoom(frames: Int, timeout: Double) throws {
        if let device {
            do { try device.waitForRoom(frames: frames, timeout: timeout) } catch { lose(error, retiring: device) }
        } else {
            try standIn.waitForRoom(frames: frames, timeout: timeout)
        }
    }

    public var delayFrames: Int { device?.delayFrames ?? standIn.delayFrames }

    public func pause() throws { forward { try $0.pause() }; try standIn.pause() }
    public func resume() throws { forward { try $0.resume() }; try standIn.resume() }
    public func drop() throws { forward { try $0.drop() }; try standIn.drop() }
    public func drain() throws { forward { try $0.drain() }; try standIn.drain() }
    public func recover() throws { forward { try $0.recover() } }

    public var counters: AudioOutputCounters {
        var total = own
        let current = device?.counters ?? AudioOutputCounters()
        total.framesWritten = retired.framesWritten + current.framesWritten + standIn.counters.framesWritten
        total.underruns = retired.underruns + current.underruns
        total.suspends = retired.suspends + current.suspends
        return total
    }

    public func close() {
        if let device { retire(device) }
        device = nil
    }

    /// Runs a control call on the device; a device that fails it is treated as lost.
    private func forward(_ call: (AudioOutput) throws -> Void) {
        guard let device else { return }
        do { try call(device) } catch { lose(error, retiring: device) }
    }

    private func lose(_ error: Error, retiring lost: AudioOutput?) {
        if let lost { retire(lost) }
        device = nil
        let reason = (error as? AudioOutputError) ?? .writeFailed(device: deviceName, reason: "\(error)")
        failure = reason
        own.failures += 1
        failedAttempts = 0
        let delay = scheduleNextAttempt()
        if let format { _ = try? standIn.configure(format) }
        logger.warning("\(reason); playing without sound, trying again in \(Self.seconds(delay))")
    }

    private func reopen() {
        guard let format else { return }
        let candidate = makeOutput(format)
        do {
            let negotiated = try candidate.configure(format)
            guard negotiated == format else {
                throw AudioOutputError.unsupportedFormat(device: deviceName,
                                                         reason: "came back as \(negotiated), not \(format)")
            }
            device = candidate
            failure = nil
            own.reopens += 1
            failedAttempts = 0
            reportedFormatMismatch = false
            logger.notice("audio device '\(deviceName)' is back: \(format)")
        } catch {
            candidate.close()
            let delay = scheduleNextAttempt()
            if case AudioOutputError.unsupportedFormat = error, !reportedFormatMismatch {
                reportedFormatMismatch = true
                logger.warning("\(error); still playing without sound, trying again in \(Self.seconds(delay))")
            } else {
                logger.debug("\(error); trying again in \(Self.seconds(delay))")
            }
        }
    }

    /// Counts a failed attempt and sets when the next one is due; returns the wait.
    private func scheduleNextAttempt() -> Double {
        failedAttempts += 1
        let delay = backoff.delay(afterFailures: failedAttempts).seconds
        nextAttempt = clock.now() + delay
        return delay
    }

    private func retire(_ output: AudioOutput) {
        let counters = output.counters
        retired.framesWritten += counters.framesWritten
        retired.underruns += counters.underruns
        retired.suspends += counters.suspends
        output.close()
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
