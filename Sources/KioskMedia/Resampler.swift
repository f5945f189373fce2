import CFFmpeg
import KioskCore

/// Converts decoded audio to an output's format with swresample: sample format, rate, and
/// channels (5.1 and 7.1 fold down to stereo with FFmpeg's standard matrix, normalised so the
/// sum cannot clip; mono plays at full level on both sides of a stereo device).
///
/// swresample writes in FFmpeg's native channel order; the device's order (ALSA puts the rear
/// pair before centre and LFE) is restored while copying out. Input parameters may change
/// between frames (some streams switch layouts mid-way): the context is rebuilt when they do.
public final class Resampler {
    public let output: AudioFormat
    private var context: OpaquePointer?
    private var inputKey: InputKey?
    /// The layout swresample writes: the device's speakers in FFmpeg's order.
    private var nativeLayout = AVChannelLayout()
    /// For each device channel, the swresample output channel feeding it (-1: silence).
    private let deviceFromNative: [Int]
    /// The speaker of each swresample output channel (0 where unnamed).
    private let nativeSpeakers: [UInt64]
    private let isIdentityOrder: Bool
    /// Output samples added (positive) or taken out per million, spread evenly (a
    /// synchronised player keeps its sound on the shared timeline with it).
    private var compensationPPM = 0
    private var scratch: UnsafeMutableRawPointer?
    private var scratchFrames = 0

    private struct InputKey: Equatable {
        var format: Int32
        var rate: Int32
        var layoutDescription: String
    }

    public init(output: AudioFormat) {
        self.output = output
        let bits = output.channelPositions.map(\.ffmpegMask)
        let mask = bits.reduce(UInt64(0), |)
        // Unnamed speakers (or a duplicated one): play FFmpeg's default layout straight across.
        if mask == 0 || mask.nonzeroBitCount != bits.filter({ $0 != 0 }).count {
            av_channel_layout_default(&nativeLayout, Int32(output.channels))
            deviceFromNative = Array(0..<output.channels)
            nativeSpeakers = Array(repeating: 0, count: output.channels)
        } else {
            av_channel_layout_from_mask(&nativeLayout, mask)
            let speakers = (0..<64).map { UInt64(1) << UInt64($0) }.filter { mask & $0 != 0 }
            nativeSpeakers = speakers
            deviceFromNative = bits.map { bit in bit == 0 ? -1 : speakers.firstIndex(of: bit)! }
        }
        isIdentityOrder = Int(nativeLayout.nb_channels) == output.channels && deviceFromNative == Array(0..<output.channels)
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&nativeLayout)
        scratch?.deallocate()
    }

    /// Converts `frame`, appending interleaved output frames to `destination`; returns how
    /// many were appended (swresample may hold a few back until the next frame).
    @discardableResult
    public func convert(_ frame: DecodedAudioFrame, appendingTo destination: inout [UInt8]) throws -> Int {
        try prepare(for: frame)
        try applyCompensation()
        let input = UnsafeMutableRawPointer(frame.frame.pointee.extended_data!)
            .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        return try run(input: input, count: Int32(frame.frameCount), appendingTo: &destination)
    }

    /// Appends what swresample still holds (end of an item).
    @discardableResult
    public func flush(appendingTo destination: inout [UInt8]) throws -> Int {
        guard context != nil else { return 0 }
        return try run(input: nil, count: 0, appendingTo: &destination)
    }

    /// Plays the sound `ppm` parts per million longer (positive: slower) or shorter, by
    /// swresample's soft compensation: a resampling ratio a hair off 1, no audible step.
    public func setCompensation(ppm: Int) {
        compensationPPM = ppm
    }

    /// Over the next 10 s of output, renewed at each frame while it is wanted (swresample
    /// stops compensating after the distance given).
    private func applyCompensation() throws {
        guard let context, compensationPPM != 0 || compensating else { return }
        let distance: Int32 = Int32(output.sampleRate) * 10
        let delta = Int32((Int64(compensationPPM) * Int64(distance) / 1_000_000))
        let result = swr_set_compensation(context, delta, delta == 0 ? 0 : distance)
        guard result >= 0 else { throw MediaError(source: "audio", reason: "cannot compensate the sound's timing: \(ffmpegErrorText(result))") }
        compensating = delta != 0
    }

    private var compensating = false

    /// Forgets held samples (seeks).
    public func reset() {
        swr_free(&context)
        inputKey = nil
        compensating = false
    }

    private func prepare(for frame: DecodedAudioFrame) throws {
        var layout = AVChannelLayout()
        defer { av_channel_layout_uninit(&layout) }
        if frame.frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_NATIVE {
            _ = av_channel_layout_copy(&layout, &frame.frame.pointee.ch_layout)
        } else {
            // Unspecified or custom orders: assume the usual layout for the channel count.
            av_channel_layout_default(&layout, Int32(frame.channels))
        }
        let key = InputKey(format: frame.frame.pointee.format, rate: frame.frame.pointee.sample_rate,
                           layoutDescription: Resampler.describe(&layout))
        if key == inputKey, context != nil { return }
        swr_free(&context)
        var created: OpaquePointer? = nil
        var result = swr_alloc_set_opts2(&created, &nativeLayout, output.sampleFormat.ffmpegFormat, Int32(output.sampleRate),
                                         &layout, AVSampleFormat(key.format), key.rate, 0, nil)
        if result >= 0, let created {
            // Downmixes are scaled so that a full-scale sum cannot clip, for float output too.
            _ = av_opt_set_double(UnsafeMutableRawPointer(created), "rematrix_maxval", 1.0, 0)
            if frame.channels == 1 {
                var matrix = monoMatrix()
                result = swr_set_matrix(created, &matrix, 1)
            }
            if result >= 0 { result = swr_init(created) }
        }
        context = created
        guard result >= 0 else {
            swr_free(&context)
            throw MediaError(source: "audio", reason: "cannot convert \(frame.sampleFormatName) \(key.rate) Hz \(key.layoutDescription) to \(output): \(ffmpegErrorText(result))")
        }
        inputKey = key
    }

    /// Mono at full level on the front pair (swresample's own matrix puts it there at -3 dB,
    /// as if it were a centre speaker), or on the centre or first speaker when there is no pair.
    private func monoMatrix() -> [Double] {
        let left = AudioChannel.frontLeft.ffmpegMask, right = AudioChannel.frontRight.ffmpegMask
        let centre = AudioChannel.frontCenter.ffmpegMask
        var matrix = [Double](repeating: 0, count: nativeSpeakers.count)
        if let l = nativeSpeakers.firstIndex(of: left), let r = nativeSpeakers.firstIndex(of: right) {
            matrix[l] = 1
            matrix[r] = 1
        } else {
            matrix[nativeSpeakers.firstIndex(of: centre) ?? 0] = 1
        }
        return matrix
    }

    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32,
                     appendingTo destination: inout [UInt8]) throws -> Int {
        let capacity = Int(swr_get_out_samples(context, count)) + 32
        let nativeChannels = Int(nativeLayout.nb_channels)
        let nativeFrameBytes = nativeChannels * output.sampleFormat.bytesPerSample
        if capacity > scratchFrames {
            scratch?.deallocate()
            scratch = UnsafeMutableRawPointer.allocate(byteCount: capacity * nativeFrameBytes, alignment: 16)
            scratchFrames = capacity
        }
        var outputPlane: UnsafeMutablePointer<UInt8>? = scratch!.assumingMemoryBound(to: UInt8.self)
        let produced = swr_convert(context, &outputPlane, Int32(capacity), input, count)
        guard produced >= 0 else {
            throw MediaError(source: "audio", reason: "resampling failed: \(ffmpegErrorText(produced))")
        }
        appendInDeviceOrder(frames: Int(produced), nativeChannels: nativeChannels, to: &destination)
        return Int(produced)
    }

    private func appendInDeviceOrder(frames: Int, nativeChannels: Int, to destination: inout [UInt8]) {
        let source = UnsafeRawBufferPointer(start: scratch, count: frames * nativeChannels * output.sampleFormat.bytesPerSample)
        if isIdentityOrder {
            destination.append(contentsOf: source)
            return
        }
        let sampleBytes = output.sampleFormat.bytesPerSample
        let start = destination.count
        destination.append(contentsOf: repeatElement(0, count: frames * output.bytesPerFrame))
        destination.withUnsafeMutableBytes { bytes in
            for frame in 0..<frames {
                for (channel, nativeIndex) in deviceFromNative.enumerated() where nativeIndex >= 0 {
                    let from = (frame * nativeChannels + nativeIndex) * sampleBytes
                    let to = start + (frame * output.channels + channel) * sampleBytes
                    bytes.baseAddress!.advanced(by: to).copyMemory(from: source.baseAddress!.advanced(by: from), byteCount: sampleBytes)
                }
            }
        }
    }

    static func describe(_ layout: UnsafePointer<AVChannelLayout>) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard av_channel_layout_describe(layout, &buffer, buffer.count) > 0 else { return "unknown layout" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension PCMSampleFormat {
    /// The packed (interleaved) FFmpeg format of the same encoding.
    var ffmpegFormat: AVSampleFormat {
        switch self {
        case .s16: return AV_SAMPLE_FMT_S16
        case .s32: return AV_SAMPLE_FMT_S32
        case .float: return AV_SAMPLE_FMT_FLT
        }
    }
}

extension AudioChannel {
    /// FFmpeg's channel mask bit for this speaker (0 for none).
    var ffmpegMask: UInt64 {
        let channel: AVChannel
        switch self {
        case .mono, .frontCenter: channel = AV_CHAN_FRONT_CENTER
        case .frontLeft: channel = AV_CHAN_FRONT_LEFT
        case .frontRight: channel = AV_CHAN_FRONT_RIGHT
        case .lowFrequency: channel = AV_CHAN_LOW_FREQUENCY
        case .rearLeft: channel = AV_CHAN_BACK_LEFT
        case .rearRight: channel = AV_CHAN_BACK_RIGHT
        case .rearCenter: channel = AV_CHAN_BACK_CENTER
        case .sideLeft: channel = AV_CHAN_SIDE_LEFT
        case .sideRight: channel = AV_CHAN_SIDE_RIGHT
        case .frontLeftOfCenter: channel = AV_CHAN_FRONT_LEFT_OF_CENTER
        case .frontRightOfCenter: channel = AV_CHAN_FRONT_RIGHT_OF_CENTER
        case .unknown: return 0
        }
        return UInt64(1) << UInt64(channel.rawValue)
    }
}
