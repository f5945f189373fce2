import CFFmpeg
import CKioskShim
import KioskCore

/// FFmpeg's decoder for one video stream, with frame threads (several frames decode at once on
/// several cores: the one thing that makes 1080p cheap on small boxes).
public final class VideoDecoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    let streamIndex: Int
    let timeBase: AVRational
    let startTicks: Int64
    let sampleAspect: Rational
    let rotation: Rotation
    /// Packets the decoder rejected as damaged; playback goes on past them.
    public private(set) var damagedPackets = 0

    public init(asset: Asset, streamIndex: Int, threads: Int = 0) throws {
        let stream = asset.stream(at: streamIndex)
        let parameters = stream.pointee.codecpar!
        let codecName = parameters.pointee.codec_id == AV_CODEC_ID_NONE
            ? "unknown" : String(cString: avcodec_get_name(parameters.pointee.codec_id))
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        let limit = Asset.maximumPictureSize
        guard width > 0, height > 0 else {
            throw MediaError(source: asset.source, reason: "video stream has no picture size (\(codecName))")
        }
        guard width <= limit.width, height <= limit.height else {
            throw MediaError(source: asset.source,
                             reason: "picture is \(width)x\(height); kiosk plays up to \(limit.width)x\(limit.height)")
        }
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(source: asset.source, reason: "unsupported codec '\(codecName)': no decoder in this FFmpeg build")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(source: asset.source, reason: "out of memory opening the \(codecName) decoder")
        }
        codecContext = context
        var result = avcodec_parameters_to_context(context, parameters)
        if result >= 0 {
            context.pointee.thread_count = Int32(threads)
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
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
        let sar = stream.pointee.sample_aspect_ratio.num > 0 ? stream.pointee.sample_aspect_ratio : parameters.pointee.sample_aspect_ratio
        sampleAspect = sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : .one
        rotation = Rotation(degrees: Asset.rotationDegrees(of: stream)) ?? .none
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

    public enum Output { case frame(DecodedFrame), needsInput, finished }

    public func receive() -> Output {
        guard let frame = av_frame_alloc() else { return .finished }
        let result = avcodec_receive_frame(codecContext, frame)
        guard result >= 0 else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            return result == AVResult.again ? .needsInput : .finished
        }
        var ticks = frame.pointee.best_effort_timestamp
        if ticks == kiosk_nopts_value() { ticks = frame.pointee.pts }
        if ticks == kiosk_nopts_value() { ticks = startTicks }
        let pts = MediaTime(ticks: ticks - startTicks, timeBase: Rational(Int64(timeBase.num), Int64(timeBase.den)))
        let sar = frame.pointee.sample_aspect_ratio
        let frameAspect = sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : sampleAspect
        return .frame(DecodedFrame(taking: frame, pts: pts, sampleAspect: frameAspect, rotation: rotation))
    }

    /// Feeds a demuxed packet, or nil to drain at the end; false when the decoder is full.
    /// `unshownBefore`: frames before this time are decoded only to reach it (a seek), so the
    /// decoder may skip those no other frame refers to, as mpv's precise seeks do: in a typical
    /// H.264 stream with B-frames that is a third to a half of the frames between the keyframe
    /// and the target, and the seek's catch-up decoding is that much shorter.
    public func send(_ packet: Packet?, unshownBefore target: MediaTime = .zero) -> Bool {
        if let packet {
            let ticks = packet.packet.pointee.pts
            let early = target > .zero && ticks != kiosk_nopts_value()
                && MediaTime(ticks: ticks - startTicks, timeBase: Rational(Int64(timeBase.num), Int64(timeBase.den)))
                    < target - MediaTime(value: 1, timescale: 1000)
            codecContext?.pointee.skip_frame = early ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
        }
        return send(packet?.packet)
    }

    /// Forgets buffered frames after a seek.
    public func flush() {
        avcodec_flush_buffers(codecContext)
    }
}
