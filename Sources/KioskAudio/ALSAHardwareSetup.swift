import CALSA
import Glibc
import KioskCore

/// What hw/sw params negotiation settled on for an open PCM.
struct ALSANegotiated {
    var format: AudioFormat
    var periodFrames: Int
    var bufferFrames: Int
    var canPause: Bool
}

/// Negotiates hardware and software parameters on an open PCM.
///
/// Sample format: the requested one if the device takes it, else the first it takes of S32,
/// FLOAT, S16 (32-bit first: the software volume then loses no resolution). Channels and rate:
/// the nearest the device takes to the request; swresample converts to them. With `native`,
/// ALSA's plug layer is told not to convert (SND_PCM_NO_AUTO_*), so this sees what the
/// hardware or dmix really runs at, and the conversion happens once, in swresample, at better
/// quality than ALSA's linear resampler.
///
/// Period and buffer: ~10 ms periods in a ~40 ms buffer. The buffer bounds how long a volume
/// change takes to be heard (it is applied as samples enter the buffer) and the latency of
/// pause and seek; four periods leave 30 ms of slack for the writer thread, which has nothing
/// else to do and finds the next samples already converted in its queue.
enum ALSAHardwareSetup {
    static func negotiate(_ pcm: OpaquePointer, device: String, requested: AudioFormat,
                          periodTime: Double, bufferTime: Double, native: Bool) throws -> ALSANegotiated {
        var hw: OpaquePointer? = nil
        guard snd_pcm_hw_params_malloc(&hw) == 0, let hw else {
            throw AudioOutputError.unavailable(device: device, reason: "out of memory")
        }
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ result: Int32, _ what: String) throws {
            if result < 0 {
                throw AudioOutputError.unsupportedFormat(device: device, reason: "\(what): \(alsaErrorText(result))")
            }
        }
        try check(snd_pcm_hw_params_any(pcm, hw), "no configuration available")
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "no interleaved access")
        _ = snd_pcm_hw_params_set_rate_resample(pcm, hw, native ? 0 : 1)

        let preference = [requested.sampleFormat] + [PCMSampleFormat.s32, .float, .s16].filter { $0 != requested.sampleFormat }
        guard let sampleFormat = preference.first(where: { snd_pcm_hw_params_test_format(pcm, hw, $0.alsaFormat) == 0 }) else {
            throw AudioOutputError.unsupportedFormat(
                device: device, reason: "takes none of S16_LE, S32_LE, FLOAT_LE (it takes \(supportedFormatNames(pcm, hw)))")
        }
        try check(snd_pcm_hw_params_set_format(pcm, hw, sampleFormat.alsaFormat), "format \(sampleFormat)")

        var channels = UInt32(requested.channels)
        try check(snd_pcm_hw_params_set_channels_near(pcm, hw, &channels), "no channel count near \(requested.channels)")
        var rate = UInt32(requested.sampleRate)
        var direction: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction), "no sample rate near \(requested.sampleRate) Hz")

        // Best effort: a device with larger minimum periods keeps its own; the sizes actually
        // set are read back below.
        var bufferMicroseconds = UInt32(bufferTime * 1_000_000)
        _ = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferMicroseconds, &direction)
        var periodMicroseconds = UInt32(periodTime * 1_000_000)
        _ = snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodMicroseconds, &direction)
        try check(snd_pcm_hw_params(pcm, hw), "cannot apply \(sampleFormat) \(rate) Hz \(channels) ch")

        var periodFrames = snd_pcm_uframes_t(0), bufferFrames = snd_pcm_uframes_t(0)
        _ = snd_pcm_hw_params_get_period_size(hw, &periodFrames, &direction)
        _ = snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames)
        let canPause = snd_pcm_hw_params_can_pause(hw) == 1
        let period = max(1, Int(periodFrames)), buffer = max(period, Int(bufferFrames))
        try setSoftwareParameters(pcm, device: device, periodFrames: period, bufferFrames: buffer)

        let format = AudioFormat(sampleFormat: sampleFormat, sampleRate: Int(rate), channels: Int(channels),
                                 channelPositions: channelPositions(pcm, channels: Int(channels)))
        return ALSANegotiated(format: format, periodFrames: period, bufferFrames: buffer, canPause: canPause)
    }

    /// Starts playing once the buffer is all but one period full (a start on the first period
    /// would underrun if the second came late); wakes the writer when a period is free.
    private static func setSoftwareParameters(_ pcm: OpaquePointer, device: String, periodFrames: Int, bufferFrames: Int) throws {
        var sw: OpaquePointer? = nil
        guard snd_pcm_sw_params_malloc(&sw) == 0, let sw else {
            throw AudioOutputError.unavailable(device: device, reason: "out of memory")
        }
        defer { snd_pcm_sw_params_free(sw) }
        var result = snd_pcm_sw_params_current(pcm, sw)
        if result >= 0 {
            let threshold = max(periodFrames, bufferFrames - periodFrames)
            result = snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(threshold))
        }
        if result >= 0 { result = snd_pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(periodFrames)) }
        if result >= 0 { result = snd_pcm_sw_params(pcm, sw) }
        if result < 0 {
            throw AudioOutputError.unsupportedFormat(device: device, reason: "software parameters: \(alsaErrorText(result))")
        }
    }

    /// The device's channel map, or ALSA's default order when it publishes none.
    private static func channelPositions(_ pcm: OpaquePointer, channels: Int) -> [AudioChannel] {
        guard let map = snd_pcm_get_chmap(pcm) else { return AudioChannel.alsaDefaultOrder(channels: channels) }
        defer { free(map) }
        let raw = UnsafeRawPointer(map)
        let count = Int(raw.load(as: UInt32.self))
        guard count == channels else { return AudioChannel.alsaDefaultOrder(channels: channels) }
        return (0..<count).map { index in
            let position = raw.load(fromByteOffset: 4 + 4 * index, as: UInt32.self) & UInt32(SND_CHMAP_POSITION_MASK)
            return AudioChannel(alsaPosition: position)
        }
    }

    private static func supportedFormatNames(_ pcm: OpaquePointer, _ hw: OpaquePointer) -> String {
        var names: [String] = []
        for raw in 0...Int32(SND_PCM_FORMAT_LAST.rawValue) {
            let format = snd_pcm_format_t(raw)
            if snd_pcm_hw_params_test_format(pcm, hw, format) == 0, let name = snd_pcm_format_name(format) {
                names.append(String(cString: name))
            }
        }
        return names.isEmpty ? "nothing" : names.joined(separator: ", ")
    }
}

extension PCMSampleFormat {
    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .s16: return SND_PCM_FORMAT_S16_LE
        case .s32: return SND_PCM_FORMAT_S32_LE
        case .float: return SND_PCM_FORMAT_FLOAT_LE
        }
    }
}

extension AudioChannel {
    init(alsaPosition: UInt32) {
        switch alsaPosition {
        case SND_CHMAP_MONO.rawValue: self = .mono
        case SND_CHMAP_FL.rawValue: self = .frontLeft
        case SND_CHMAP_FR.rawValue: self = .frontRight
        case SND_CHMAP_RL.rawValue: self = .rearLeft
        case SND_CHMAP_RR.rawValue: self = .rearRight
        case SND_CHMAP_FC.rawValue: self = .frontCenter
        case SND_CHMAP_LFE.rawValue: self = .lowFrequency
        case SND_CHMAP_SL.rawValue: self = .sideLeft
        case SND_CHMAP_SR.rawValue: self = .sideRight
        case SND_CHMAP_RC.rawValue: self = .rearCenter
        case SND_CHMAP_FLC.rawValue: self = .frontLeftOfCenter
        case SND_CHMAP_FRC.rawValue: self = .frontRightOfCenter
        default: self = .unknown
        }
    }
}

/// alsa-lib's text for a negative error code.
func alsaErrorText(_ code: Int32) -> String {
    snd_strerror(code).map { String(cString: $0) } ?? "error \(code)"
}
