import CALSA
import Glibc
import KioskCore

/// An ALSA playback PCM opened by name: `default`, `hw:0,0`, `plughw:1,0`, a dmix name.
///
/// Opened non-blocking: `write` waits with snd_pcm_wait and a timeout, so a device that stops
/// taking samples without saying so (some HDMI sinks on unplug) is reported as failed instead
/// of hanging the writer thread forever.
public final class PCMSink: AudioOutput {
    public struct Options: Sendable, Hashable {
        /// Target time between wake-ups of the writer.
        public var periodTime: Double
        /// Target time of sound queued in the device: bounds volume, pause and seek latency.
        public var bufferTime: Double
        /// `deviceNative` asks ALSA's plug layer not to convert and converts in swresample
        /// (falling back to ALSA's conversions only for a device that takes none of S16, S32,
        /// FLOAT); `allowConversions` lets ALSA convert to keep a fixed format (reopening a
        /// device that came back).
        public var conversions: Conversions
        /// How long `write` waits for room before declaring the device stuck.
        public var stallTimeout: Double

        public enum Conversions: Sendable, Hashable { case deviceNative, allowConversions }

        public init(periodTime: Double = 0.010, bufferTime: Double = 0.040,
                    conversions: Conversions = .deviceNative, stallTimeout: Double = 2) {
            self.periodTime = periodTime
            self.bufferTime = bufferTime
            self.conversions = conversions
            self.stallTimeout = stallTimeout
        }
    }

    public let deviceName: String
    public let options: Options
    public private(set) var format: AudioFormat?
    public private(set) var counters = AudioOutputCounters()
    public private(set) var failure: AudioOutputError?
    /// Negotiated sizes, in frames (0 before `configure`).
    public private(set) var periodFrames = 0
    public private(set) var bufferFrames = 0
    private var pcm: OpaquePointer?
    private var canPause = false
    /// Set when a device without hardware pause was stopped by dropping its queue instead.
    private var pausedByDropping = false

    public init(device: String, options: Options = Options()) {
        deviceName = device
        self.options = options
    }

    deinit { close() }

    public func configure(_ requested: AudioFormat) throws -> AudioFormat {
        close()
        ALSALog.routeIfNeeded()
        do {
            return try open(requested, native: options.conversions == .deviceNative)
        } catch AudioOutputError.unsupportedFormat(_, _) where options.conversions == .deviceNative {
            // An odd device (S24_3LE only, say): let ALSA's plug layer convert for us.
            return try open(requested, native: false)
        }
    }

    private func open(_ requested: AudioFormat, native: Bool) throws -> AudioFormat {
        var handle: OpaquePointer? = nil
        var mode = SND_PCM_NONBLOCK
        if native { mode |= SND_PCM_NO_AUTO_RESAMPLE | SND_PCM_NO_AUTO_CHANNELS | SND_PCM_NO_AUTO_FORMAT }
        let result = snd_pcm_open(&handle, deviceName, SND_PCM_STREAM_PLAYBACK, mode)
        guard result == 0, let handle else {
            throw AudioOutputError.unavailable(device: deviceName, reason: PCMSink.describeOpenFailure(result))
        }
        do {
            let negotiated = try ALSAHardwareSetup.negotiate(handle, device: deviceName, requested: requested,
                                                             periodTime: options.periodTime, bufferTime: options.bufferTime,
                                                             native: native)
            pcm = handle
            format = negotiated.format
            periodFrames = negotiated.periodFrames
            bufferFrames = negotiated.bufferFrames
            canPause = negotiated.canPause
            failure = nil
            return negotiated.format
        } catch {
            snd_pcm_close(handle)
            throw error
        }
    }

    static func describeOpenFailure(_ code: Int32) -> String {
        switch -code {
        case ENOENT: return "no such device (unknown PCM name, or no sound card with that number)"
        case EBUSY: return "device busy: another program is using it (a dmix device such as 'default' can be shared)"
        case EACCES, EPERM: return "permission denied (is the user in the 'audio' group?)"
        case ENODEV, ENXIO: return "no such device (is the sound card present?)"
        default: return alsaErrorText(code)
        }
    }

    public func write(_ frames: UnsafeRawBufferPointer) throws {
        guard let pcm, let format else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        let frameBytes = format.bytesPerFrame
        var offset = 0
        var remaining = frames.count / frameBytes
        var waitedWithoutProgress = 0.0
        while remaining > 0 {
            let written = snd_pcm_writei(pcm, frames.baseAddress! + offset, snd_pcm_uframes_t(remaining))
            if written > 0 {
                offset += written * frameBytes
                remaining -= written
                counters.framesWritten += Int64(written)
                waitedWithoutProgress = 0
                continue
            }
            let code = Int32(truncatingIfNeeded: written)
            if written == 0 || code == -EAGAIN {
                waitedWithoutProgress += try waitForRoom(pcm)
                if waitedWithoutProgress >= options.stallTimeout {
                    throw fail(.writeFailed(device: deviceName,
                                            reason: "the device took no samples for \(Int(options.stallTimeout)) s"))
                }
                continue
            }
            try recoverOrFail(pcm, code)
        }
    }

    public func waitForRoom(frames: Int, timeout: Double) throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        let clock = MonotonicClock()
        let deadline = clock.now() + timeout
        while true {
            let available = snd_pcm_avail_update(pcm)
            if available < 0 {
                try recoverOrFail(pcm, Int32(truncatingIfNeeded: available))
                continue
            }
            if available >= frames { return }
            let remaining = deadline - clock.now()
            if remaining <= 0 { return }
            // snd_pcm_wait wakes when a period (avail_min) is free: what the writer asks for.
            let result = snd_pcm_wait(pcm, Int32(min(1000, (remaining * 1000).rounded(.up))))
            if result < 0 { try recoverOrFail(pcm, result) } else if result == 0 { return }
        }
    }

    /// Waits until a period fits; returns the seconds waited in vain (0 when room came).
    private func waitForRoom(_ pcm: OpaquePointer) throws -> Double {
        let timeoutMilliseconds: Int32 = 500
        let result = snd_pcm_wait(pcm, timeoutMilliseconds)
        if result > 0 { return 0 }
        if result < 0 {
            try recoverOrFail(pcm, result)
            return 0
        }
        // A full buffer that never started (start threshold above what was written): start it.
        if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
            _ = snd_pcm_start(pcm)
            return 0
        }
        return Double(timeoutMilliseconds) / 1000
    }

    /// Underruns and suspends are recovered (and counted); a PCM left in the wrong state
    /// (EBADFD) is prepared again; anything else fails the device.
    private func recoverOrFail(_ pcm: OpaquePointer, _ code: Int32) throws {
        switch -code {
        case EPIPE: counters.underruns += 1
        case ESTRPIPE: counters.suspends += 1
        case EINTR: break
        case EBADFD:
            let result = snd_pcm_prepare(pcm)
            if result < 0 { throw fail(PCMSink.writeError(device: deviceName, result)) }
            return
        default: throw fail(PCMSink.writeError(device: deviceName, code))
        }
        let result = snd_pcm_recover(pcm, code, 1)
        if result < 0 { throw fail(PCMSink.writeError(device: deviceName, result)) }
    }

    static func writeError(device: String, _ code: Int32) -> AudioOutputError {
        switch -code {
        case ENODEV, EIO, ENXIO: return .disconnected(device: device, reason: alsaErrorText(code))
        default: return .writeFailed(device: device, reason: alsaErrorText(code))
        }
    }

    private func fail(_ error: AudioOutputError) -> AudioOutputError {
        if failure == nil { counters.failures += 1 }
        failure = error
        return error
    }

    public var delayFrames: Int {
        guard let pcm, failure == nil else { return 0 }
        var delay = snd_pcm_sframes_t(0)
        guard snd_pcm_delay(pcm, &delay) == 0 else { return 0 }
        return max(0, delay)
    }

    public func pause() throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        let state = snd_pcm_state(pcm)
        guard state == SND_PCM_STATE_RUNNING || state == SND_PCM_STATE_PREPARED else { return }
        if canPause, state == SND_PCM_STATE_RUNNING {
            let result = snd_pcm_pause(pcm, 1)
            if result == 0 { return }
            if -result == ENODEV { throw fail(PCMSink.writeError(device: deviceName, result)) }
        }
        // No hardware pause: drop the queue (at most a buffer, ~40 ms, is lost).
        _ = snd_pcm_drop(pcm)
        pausedByDropping = true
    }

    public func resume() throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        if snd_pcm_state(pcm) == SND_PCM_STATE_PAUSED {
            let result = snd_pcm_pause(pcm, 0)
            if result == 0 { return }
            if -result == ENODEV { throw fail(PCMSink.writeError(device: deviceName, result)) }
        }
        if pausedByDropping || snd_pcm_state(pcm) != SND_PCM_STATE_RUNNING {
            pausedByDropping = false
            try recover()
        }
    }

    public func drop() throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        _ = snd_pcm_drop(pcm)
        let result = snd_pcm_prepare(pcm)
        if result < 0 { throw fail(PCMSink.writeError(device: deviceName, result)) }
    }

    public func drain() throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        // Blocking for the drain itself: non-blocking mode would return -EAGAIN at once.
        _ = snd_pcm_nonblock(pcm, 0)
        let result = snd_pcm_drain(pcm)
        _ = snd_pcm_nonblock(pcm, 1)
        if result < 0, -result != EPIPE { throw fail(PCMSink.writeError(device: deviceName, result)) }
        try recover()
    }

    public func recover() throws {
        guard let pcm else { throw AudioOutputError.notConfigured(device: deviceName) }
        if let failure { throw failure }
        var result: Int32 = 0
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_XRUN:
            counters.underruns += 1
            result = snd_pcm_recover(pcm, -EPIPE, 1)
        case SND_PCM_STATE_SUSPENDED:
            counters.suspends += 1
            result = snd_pcm_recover(pcm, -ESTRPIPE, 1)
        case SND_PCM_STATE_DISCONNECTED:
            result = -ENODEV
        case SND_PCM_STATE_SETUP:
            result = snd_pcm_prepare(pcm)
        default:
            result = 0
        }
        if result < 0 { throw fail(PCMSink.writeError(device: deviceName, result)) }
    }

    public func close() {
        if let pcm {
            snd_pcm_close(pcm)
            self.pcm = nil
        }
        pausedByDropping = false
    }
}
