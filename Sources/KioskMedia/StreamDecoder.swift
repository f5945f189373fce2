import CFFmpeg
import CKioskShim
import KioskCore

/// What a decoder hands out when asked for a frame.
public enum DecoderOutput<Frame> {
    case frame(Frame)
    /// A packet must be sent first.
    case needsInput
    /// Drained: nothing more until a flush.
    case finished
}

/// FFmpeg's decoder for one stream of an asset, whatever its kind: opening the codec, packets
/// in, raw AVFrames out, flush, and the count of damaged packets. `VideoDecoder` and
/// `AudioDecoder` turn its frames into their own types; everything else is this one code.
final class StreamDecoder {
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    let timing: StreamTiming
    var streamIndex: Int { timing.index }
    var timeBase: AVRational { timing.timeBase }
    /// Media time 0 in the stream's ticks (see `Asset.originTicks`).
    var startTicks: Int64 { timing.startTicks }
    /// Packets the decoder rejected as damaged; playback goes on past them.
    private(set) var damagedPackets = 0

    /// Opens the decoder of `streamIndex` (`decoder`, or FFmpeg's for the codec); `kind`
    /// ("audio ", or "" for pictures) goes into the reasons, and `configure` sets what is
    /// particular to the kind before the codec opens.
    convenience init(asset: Asset, streamIndex: Int, kind: String, decoder: UnsafePointer<AVCodec>? = nil,
                     configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws {
        let stream = asset.stream(at: streamIndex)
        try self.init(parameters: stream.pointee.codecpar!, of: StreamTiming(asset: asset, stream: stream, index: streamIndex),
                      source: asset.source, kind: kind, decoder: decoder, configure: configure)
    }

    /// Opens a decoder for a stream described by `parameters` (a copy kept apart from the
    /// demuxer's, as `SoftwareStepDown` keeps one) with the stream's `timing`.
    init(parameters: UnsafePointer<AVCodecParameters>, of timing: StreamTiming, source: String, kind: String,
         decoder: UnsafePointer<AVCodec>? = nil, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { _ in }) throws {
        let codecName = StreamDecoder.codecName(of: parameters)
        guard let codec = decoder ?? avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw MediaError(source: source, reason: "unsupported \(kind)codec '\(codecName)': no decoder in this FFmpeg build")
        }
        guard let context = avcodec_alloc_context3(codec) else {
            throw MediaError(source: source, reason: "out of memory opening the \(codecName) decoder")
        }
        codecContext = context
        var result = avcodec_parameters_to_context(context, parameters)
        if result >= 0 {
            configure(context)
            context.pointee.pkt_timebase = timing.timeBase
            result = avcodec_open2(context, codec, nil)
        }
        guard result >= 0 else {
            avcodec_free_context(&codecContext)
            throw MediaError(source: source, reason: "cannot open the \(codecName) decoder: \(ffmpegErrorText(result))")
        }
        self.timing = timing
    }

    deinit {
        avcodec_free_context(&codecContext)
    }

    static func codecName(of parameters: UnsafePointer<AVCodecParameters>) -> String {
        parameters.pointee.codec_id == AV_CODEC_ID_NONE ? "unknown" : String(cString: avcodec_get_name(parameters.pointee.codec_id))
    }

    /// Feeds one packet, or nil to drain at the end. Damaged packets are counted and skipped.
    /// Returns false when the decoder is full and frames must be received first.
    /// Which frames the decoder may skip (AVDISCARD_NONREF while catching up to a seek target).
    func skipFrames(_ discard: AVDiscard) {
        codecContext?.pointee.skip_frame = discard
    }

    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> Bool {
        let result = avcodec_send_packet(codecContext, packet)
        if result == AVResult.again { return false }
        if result < 0 && result != AVResult.eof { damagedPackets += 1 }
        return true
    }

    /// The next decoded frame, owned by the caller (free it with av_frame_free).
    func receive() -> DecoderOutput<UnsafeMutablePointer<AVFrame>> {
        guard let frame = av_frame_alloc() else { return .finished }
        let result = avcodec_receive_frame(codecContext, frame)
        guard result >= 0 else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            return result == AVResult.again ? .needsInput : .finished
        }
        return .frame(frame)
    }

    /// The frame's timestamp in the stream's ticks, nil when it has none.
    func ticks(of frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        var ticks = frame.pointee.best_effort_timestamp
        if ticks == kiosk_nopts_value() { ticks = frame.pointee.pts }
        return ticks == kiosk_nopts_value() ? nil : ticks
    }

    /// `ticks` of this stream as media time from the item's start.
    func mediaTime(ticks: Int64) -> MediaTime {
        MediaTime(ticks: ticks - startTicks, timeBase: Rational(Int64(timeBase.num), Int64(timeBase.den)))
    }

    /// Forgets buffered frames after a seek.
    func flush() {
        avcodec_flush_buffers(codecContext)
    }
}

/// Where a stream sits in its asset and how its ticks read: what a decoder needs of it besides
/// its codec parameters.
struct StreamTiming {
    let index: Int
    let timeBase: AVRational
    /// Media time 0 in the stream's ticks (see `Asset.originTicks`).
    let startTicks: Int64

    init(asset: Asset, stream: UnsafeMutablePointer<AVStream>, index: Int) {
        self.index = index
        timeBase = stream.pointee.time_base
        startTicks = asset.originTicks(of: stream)
    }
}

/// What the frame readers need of a decoder; `VideoDecoder` and `AudioDecoder` both are one.
protocol FrameDecoding: AnyObject {
    associatedtype Frame
    var stream: StreamDecoder { get }
    func receive() -> DecoderOutput<Frame>
    func flush()
}
