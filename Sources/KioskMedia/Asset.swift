import CFFmpeg
import CKioskShim
import Glibc
import KioskCore
import SystemPackage

/// An opened media file or URL (AVAsset's role): the demuxer context and what it contains.
/// Not thread-safe: one Asset is read by one thread at a time (the engine's demux thread).
public final class Asset {
    public let source: String
    public let info: MediaInfo
    var formatContext: UnsafeMutablePointer<AVFormatContext>?
    /// FFmpeg's first error line while opening and probing (a picture too large, an invalid
    /// header), for reasons its return codes do not give.
    let probeError: String?

    /// Frames larger than this are refused before any decoding: a 16384x16384 picture would ask
    /// for a gigabyte per frame and buys nothing on a signage screen.
    public static let maximumPictureSize = PixelSize(width: 8192, height: 8192)

    /// Cancels blocking network calls of this asset (see `InterruptFlag`).
    public let interrupt: InterruptFlag
    /// The item's own options for a URL's open (`StreamOptions`), kept for its reopens.
    public let streamOptions: StreamOptions

    /// Opens and probes `source` (a path or a URL FFmpeg understands). Throws a `MediaError`
    /// that names the source and says why in one line. A URL is opened with FFmpeg's network
    /// options (`NetworkOpenOptions`); `interrupt` cancels the open and every later read, and
    /// `openTimeout` bounds the open and probe of a URL.
    /// `deviceFormat` names a libavdevice input (e.g. "alsa" for `kiosk record --audio`) that
    /// reads `source` as its device name instead of a file or URL.
    public init(source: String, interrupt: InterruptFlag = InterruptFlag(),
                openTimeout: Double = NetworkOpenOptions.openTimeoutSeconds, deviceFormat: String? = nil,
                streamOptions: StreamOptions = StreamOptions()) throws {
        self.source = source
        self.interrupt = interrupt
        self.streamOptions = streamOptions
        let capture: (device: String, format: UnsafePointer<AVInputFormat>)?
        if let deviceFormat {
            capture = (source, try Asset.deviceInput(deviceFormat, source: source))
        } else {
            try Asset.checkLocalFile(source)
            capture = try Asset.captureInput(source)
        }
        let isNetwork = NetworkURL.isNetwork(source)
        if isNetwork { NetworkOpenOptions.initializeNetworkOnce() }
        kiosk_av_clear_first_error()
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        context?.pointee.interrupt_callback = interrupt.callback
        var options = isNetwork ? NetworkOpenOptions.dictionary(for: source, streamOptions) : nil
        if isNetwork { interrupt.setDeadline(afterSeconds: openTimeout) }
        defer { if isNetwork { interrupt.setDeadline(afterSeconds: nil) } }
        // Counted from before the open: a UDP source binds its port in it, and waits there for data.
        OpenInputs.shared.opened(source)
        let openResult = avformat_open_input(&context, capture?.device ?? source, capture?.format, &options)
        av_dict_free(&options)
        guard openResult >= 0, let context else {
            OpenInputs.shared.closed(source)
            throw MediaError(source: source, reason: Asset.describeOpenFailure(openResult, timeout: isNetwork && !interrupt.isCancelled ? openTimeout : nil,
                                                                               waitsForSender: Asset.waitsForSender(source),
                                                                               path: capture == nil && !isNetwork ? source : nil))
        }
        formatContext = context
        if isNetwork { NetworkOpenOptions.enableReconnectOnErrors(context, source: source) }
        let probeResult = avformat_find_stream_info(context, nil)
        probeError = ffmpegFirstError()
        guard probeResult >= 0 else {
            avformat_close_input(&formatContext)
            OpenInputs.shared.closed(source)
            throw MediaError(source: source, reason: "cannot read stream information: \(probeError ?? ffmpegErrorText(probeResult))")
        }
        info = Asset.describe(context, source: source)
        guard info.streams.contains(where: { $0.kind == .video || $0.kind == .audio }) else {
            avformat_close_input(&formatContext)
            OpenInputs.shared.closed(source)
            // Random bytes are sometimes taken for a text format (lrc, subtitles) with no streams
            // to play: to the person who named it .mp4 it is simply not a media file.
            throw MediaError(source: source, reason: "not a media file kiosk can play: FFmpeg read it as \(info.formatName) and found no video or audio stream")
        }
    }

    deinit {
        closeInput()
    }

    /// Closes the input now, before the asset goes: a live UDP or RTP source holds its bound
    /// port, and its reopen binds the same one (found by test_live_sources: every reopen
    /// failed "bind failed: Address already in use"). Only `info` and `source` stay; reads end
    /// and seeks fail. Closing twice is harmless.
    public func closeInput() {
        guard formatContext != nil else { return }
        avformat_close_input(&formatContext)
        OpenInputs.shared.closed(source)
    }

    /// False once `closeInput` ran.
    public var isOpen: Bool { formatContext != nil }

    /// The container's length is FFmpeg's guess from the bit rate (no timestamps read to the
    /// end, no header that says it): not a promise a short file breaks.
    public var lengthIsGuessed: Bool {
        guard let context = formatContext else { return true }
        return context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
    }

    var context: UnsafeMutablePointer<AVFormatContext> { formatContext! }

    func stream(at index: Int) -> UnsafeMutablePointer<AVStream> {
        context.pointee.streams[index]!
    }

    /// Where media time 0 is for `stream`, in its ticks: the file's start, common to all its
    /// streams (so audio and video that start apart stay apart), else the stream's own start.
    func originTicks(of stream: UnsafeMutablePointer<AVStream>) -> Int64 {
        let fileStart = context.pointee.start_time
        if fileStart != kiosk_nopts_value() {
            return av_rescale_q(fileStart, AVRational(num: 1, den: AV_TIME_BASE), stream.pointee.time_base)
        }
        return stream.pointee.start_time == kiosk_nopts_value() ? 0 : stream.pointee.start_time
    }

    /// Local paths get a precise reason before FFmpeg's generic "Invalid data".
    /// For a capture item (`v4l2:///dev/video0`): its device node and FFmpeg's demuxer for it.
    /// nil for anything else; a clear error when the item is malformed, the device node is not
    /// there, or libavdevice is missing. The node is looked for before libavdevice is loaded:
    /// a camera unplugged is said at once, without the load (dozens of libraries; in a starved
    /// guest it outlasted the stall guard's 15 s, which then said "not open" instead).
    private static func captureInput(_ source: String) throws -> (device: String, format: UnsafePointer<AVInputFormat>)? {
        guard CaptureSource.isCapture(source) else { return nil }
        guard let capture = CaptureSource(source) else {
            throw MediaError(source: source, reason: "not a capture device: write v4l2:///dev/videoN")
        }
        guard access(capture.device, F_OK) == 0 else {
            throw MediaError(source: source, reason: "no such device \(capture.device) (unplugged, or its driver is not loaded)")
        }
        return (capture.device, try deviceInput(capture.format, source: source))
    }

    /// libavdevice's input `name`, the library loaded first.
    private static func deviceInput(_ name: String, source: String) throws -> UnsafePointer<AVInputFormat> {
        if let failure = kiosk_avdevice_load() {
            throw MediaError(source: source, reason: "capture devices need libavdevice: \(String(cString: failure))")
        }
        guard let format = av_find_input_format(name) else {
            throw MediaError(source: source, reason: "this FFmpeg has no \(name) input")
        }
        return format
    }

    /// Where the file's time 0 is, in its own clock (a capture device's: the wall clock's
    /// microseconds); nil when the container does not say.
    public var startSeconds: Double? {
        let start = context.pointee.start_time
        return start == kiosk_nopts_value() ? nil : Double(start) / Double(AV_TIME_BASE)
    }

    /// An interlaced stream's field order as ffprobe names it (tt, bb, tb, bt); nil for a
    /// progressive one or where the container does not say.
    static func fieldOrderName(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_TT: return "tt"
        case AV_FIELD_BB: return "bb"
        case AV_FIELD_TB: return "tb"
        case AV_FIELD_BT: return "bt"
        default: return nil
        }
    }

    static func checkLocalFile(_ source: String) throws {
        if source.contains("://") || source.hasPrefix("lavfi:") { return }
        var status = stat()
        guard stat(source, &status) == 0 else {
            let reason = errno == ENOENT ? "no such file" : Errno(rawValue: errno).description
            throw MediaError(source: source, reason: reason)
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw MediaError(source: source, reason: "is a directory, not a media file")
        }
        // Opening a pipe with no writer would block the item's thread for good.
        if (status.st_mode & S_IFMT) == S_IFIFO || (status.st_mode & S_IFMT) == S_IFSOCK {
            throw MediaError(source: source, reason: "is a named pipe or socket, not a media file")
        }
        // A device (a terminal, a capture device) has no size: it is read like a stream.
        if (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0 {
            throw MediaError(source: source, reason: "empty file (0 bytes)")
        }
        if access(source, R_OK) != 0 {
            throw MediaError(source: source, reason: "not readable: \(Errno(rawValue: errno).description)")
        }
    }

    /// Schemes whose open only listens (UDP, RTP) or waits for an SRT peer: with no sender,
    /// FFmpeg's reads give up with EIO, which said "Input/output error" and nothing of why.
    private static func waitsForSender(_ source: String) -> Bool {
        ["udp", "rtp", "srt"].contains(NetworkURL.scheme(of: source) ?? "")
    }

    /// `path`: the local file opened, nil for a URL or a device.
    private static func describeOpenFailure(_ code: Int32, timeout: Double?, waitsForSender: Bool = false, path: String? = nil) -> String {
        if code == kiosk_averror_invaliddata() {
            // An MP4 or MOV keeps its index at the end unless made for streaming: cut short (a
            // copy, upload or recording that did not finish), it is an MP4 all the same.
            if let path, MP4Index.isMissing(path: path) {
                return "an MP4/MOV without its index (no moov box): the file is cut short, a copy, download or "
                    + "recording that did not finish; copy it again"
            }
            return "not a media file FFmpeg can read (unknown format or damaged data)"
        }
        if code == kiosk_averror(EIO), waitsForSender {
            return "nothing received (is its sender running, to this address and port?)"
        }
        if code == kiosk_averror_exit(), let timeout {
            return "no answer within \(Int(timeout)) s"
        }
        // FFmpeg's own line says more than its code (EBUSY for "Picture size ... is invalid").
        return "cannot open: \(ffmpegFirstError() ?? ffmpegErrorText(code))"
    }

    private static func describe(_ context: UnsafeMutablePointer<AVFormatContext>, source: String) -> MediaInfo {
        let formatName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        let duration = context.pointee.duration
        let durationSeconds = duration > 0 && duration != kiosk_nopts_value() ? Double(duration) / Double(AV_TIME_BASE) : nil
        let bestVideo = Int(av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0))
        let bestAudio = Int(av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0))
        var streams: [StreamInfo] = []
        for index in 0..<Int(context.pointee.nb_streams) {
            let stream = context.pointee.streams[index]!
            streams.append(describe(stream, index: index, isBest: index == bestVideo || index == bestAudio))
        }
        var info = MediaInfo(source: source, formatName: formatName, durationSeconds: durationSeconds,
                             bitRate: context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil,
                             streams: streams)
        // image2 and the image pipes count no frames (nb_frames 0): their picture is one still all the same.
        if info.isPictureFile {
            for index in info.streams.indices where info.streams[index].kind == .video { info.streams[index].isStillImage = true }
        }
        return info
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>, index: Int, isBest: Bool) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let kind: StreamInfo.Kind
        switch parameters.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        let timeBase = stream.pointee.time_base
        let streamDuration = stream.pointee.duration
        var info = StreamInfo(
            index: index, kind: kind, codecName: codecName(of: parameters),
            decodable: avcodec_find_decoder(parameters.codec_id) != nil, isDefaultChoice: isBest,
            durationSeconds: streamDuration > 0 && streamDuration != kiosk_nopts_value() && timeBase.den > 0
                ? Double(streamDuration) * av_q2d(timeBase) : nil,
            bitRate: parameters.bit_rate > 0 ? Int(parameters.bit_rate) : nil)
        if kind == .video {
            info.width = Int(parameters.width)
            info.height = Int(parameters.height)
            if let name = av_get_pix_fmt_name(AVPixelFormat(parameters.format)) { info.pixelFormat = String(cString: name) }
            let sar = stream.pointee.sample_aspect_ratio.num > 0 ? stream.pointee.sample_aspect_ratio : parameters.sample_aspect_ratio
            info.sampleAspectRatio = sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : Rational.one
            let rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            info.frameRate = rate.num > 0 && rate.den > 0 ? Rational(Int64(rate.num), Int64(rate.den)) : nil
            info.rotation = rotationDegrees(of: stream)
            info.fieldOrder = fieldOrderName(parameters.field_order)
            let isCover = (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
            info.isStillImage = isCover || stream.pointee.nb_frames == 1
            if isCover { info.isCoverPicture = true }
        } else if kind == .audio {
            info.sampleRate = Int(parameters.sample_rate)
            info.channels = Int(parameters.ch_layout.nb_channels)
            var layout = parameters.ch_layout
            var buffer = [CChar](repeating: 0, count: 64)
            if av_channel_layout_describe(&layout, &buffer, buffer.count) > 0 {
                info.channelLayout = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            if let name = av_get_sample_fmt_name(AVSampleFormat(parameters.format)) { info.sampleFormat = String(cString: name) }
        }
        return info
    }

    /// FFmpeg's codec name; for a codec FFmpeg does not know at all, the container's tag for
    /// it ("unknown (tag a64m)") instead of FFmpeg's "none".
    private static func codecName(of parameters: AVCodecParameters) -> String {
        guard parameters.codec_id == AV_CODEC_ID_NONE else { return String(cString: avcodec_get_name(parameters.codec_id)) }
        let tag = parameters.codec_tag
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
        guard tag != 0, bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return "unknown" }
        return "unknown (tag \(String(decoding: bytes, as: UTF8.self)))"
    }

    /// The display matrix's rotation as clockwise degrees to apply (FFmpeg reports the
    /// counter-clockwise angle the matrix encodes), snapped to quarter turns.
    static func rotationDegrees(of stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let matrix = kiosk_stream_display_matrix(stream) else { return 0 }
        let angle = av_display_rotation_get(matrix)
        guard angle.isFinite else { return 0 }
        let clockwise = Int((-angle / 90).rounded()) * 90
        return ((clockwise % 360) + 360) % 360
    }
}
