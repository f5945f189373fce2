import CFFmpeg
import CKioskShim
import KioskCore

/// Decoded sound: a reference to FFmpeg's ref-counted AVFrame (no sample copy), in the
/// decoder's own format (often planar float). Owned by one thread at a time: handed over
/// through queues, never shared, hence @unchecked Sendable.
public final class DecodedAudioFrame: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Media time of the first sample, from the start of the item.
    public private(set) var pts: MediaTime

    init(taking frame: UnsafeMutablePointer<AVFrame>, pts: MediaTime) {
        self.frame = frame
        self.pts = pts
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    public var frameCount: Int { Int(frame.pointee.nb_samples) }
    public var sampleRate: Int { Int(frame.pointee.sample_rate) }
    public var channels: Int { Int(frame.pointee.ch_layout.nb_channels) }
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(max(1, sampleRate))) }
    public var endTime: MediaTime { pts + duration }

    public var sampleFormatName: String {
        av_get_sample_fmt_name(AVSampleFormat(frame.pointee.format)).map { String(cString: $0) } ?? "unknown"
    }

    /// Drops the samples before `time` (after a seek lands on the packet before the target);
    /// false, with nothing changed, when the whole frame is before it.
    public func trim(before time: MediaTime) -> Bool {
        guard endTime > time else { return false }
        dropLeading(time.ticks(in: Rational(1, Int64(max(1, sampleRate)))) - pts.ticks(in: Rational(1, Int64(max(1, sampleRate)))))
        return true
    }

    /// Drops the first `count` samples of every channel by moving the plane pointers (the
    /// buffers stay referenced by the frame).
    func dropLeading(_ count: Int64) {
        let count = Int(min(count, Int64(frameCount)))
        guard count > 0 else { return }
        let format = AVSampleFormat(frame.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let bytesPerSample = Int(av_get_bytes_per_sample(format))
        let planes = planar ? channels : 1
        let offset = count * bytesPerSample * (planar ? 1 : channels)
        let extended = frame.pointee.extended_data!
        for plane in 0..<planes { extended[plane] = extended[plane].map { $0 + offset } }
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { pointers in
                // extended_data is data itself for up to 8 planes: moved above already.
                if pointers != extended {
                    for plane in 0..<min(8, planes) { pointers[plane] = pointers[plane].map { $0 + offset } }
                }
            }
        }
        frame.pointee.nb_samples -= Int32(count)
        pts = pts + MediaTime(value: Int64(count), timescale: Int32(sampleRate))
    }
}

/// FFmpeg's decoder for one audio stream: demuxed packets in, `DecodedAudioFrame`s out.
public final class AudioDecoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    public let streamIndex: Int
    let timeBase: AVRational
    let startTicks: Int64
    /// Packets the decoder rejected as damaged; playback goes on past them.
    public private(set) var damagedPackets = 0
    /// Where the last frame ended: a frame without a timestamp follows on from it.
    private var previousEnd: MediaTime?

    public init(asset: Asset, streamIndex: Int) throws {
        let stream = asset.stream(at: streamIndex)
        let parameters = stream.pointee.codecpar!
        let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard parameters.pointee.sample_rate > 0, parameters.pointee.ch_layout.nb_channels > 0 else {
            throw MediaError(source: asset.source, reason: "audio stream has no sample rate or channels (\(codecName))")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(source: asset.source, reason: "unsupported audio codec '\(codecName)': no decoder in this FFmpeg build")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(source: asset.source, reason: "out of memory opening the \(codecName) decoder")
        }
        codecContext = context
        var result = avcodec_parameters_to_context(context, parameters)
        if result >= 0 {
            context.pointee.pkt_timebase = stream.pointee.time_base
            result = avcodec_open2(context, codec, nil)
        }
        guard result >= 0 else {
            avcodec_free_context(&codecContext)
            throw MediaError(source: asset.source, reason: "cannot open the \(codecName) decoder: \(ffmpegErrorText(result))")
        }
        self.streamIndex = streamIndex
        timeBase = stream.pointee.time_base
        startTicks = asset.originTicks(of: stream)
    }

    deinit {
        avcodec_free_context(&codecContext)
    }

    /// Feeds one packet, or nil to drain at the end. Damaged packets are counted and skipped.
    /// Returns false when the decoder is full and frames must be received first.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> Bool {
        let result = avcodec_send_packet(codecContext, packet)
        if result == AVResult.again { return false }
        if result < 0 && result != AVResult.eof { damagedPackets += 1 }
        return true
    }

    /// Feeds a demuxed packet, or nil to drain at the end; false when the decoder is full.
    public func send(_ packet: Packet?) -> Bool {
        send(packet?.packet)
    }

    public enum Output { case frame(DecodedAudioFrame), needsInput, finished }

    /// The next decoded frame, `needsInput` when a packet must be sent first, `finished` once
    /// drained.
    public func receive() -> Output {
        guard let frame = av_frame_alloc() else { return .finished }
        let result = avcodec_receive_frame(codecContext, frame)
        guard result >= 0, frame.pointee.nb_samples > 0, frame.pointee.sample_rate > 0 else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            if result >= 0 { return .needsInput }
            return result == AVResult.again ? .needsInput : .finished
        }
        var ticks = frame.pointee.best_effort_timestamp
        if ticks == kiosk_nopts_value() { ticks = frame.pointee.pts }
        let pts: MediaTime
        if ticks != kiosk_nopts_value() {
            pts = MediaTime(ticks: ticks - startTicks, timeBase: Rational(Int64(timeBase.num), Int64(timeBase.den)))
        } else {
            pts = previousEnd ?? .zero
        }
        let decoded = DecodedAudioFrame(taking: frame, pts: pts)
        previousEnd = decoded.endTime
        return .frame(decoded)
    }

    /// Forgets buffered samples after a seek.
    public func flush() {
        avcodec_flush_buffers(codecContext)
        previousEnd = nil
    }
}
