import CFFmpeg
import KioskCore

extension DecodedFrame {
    /// A picture kiosk makes rather than decodes (a text card; an animated WebP's canvas): a
    /// frame of `size` in `format` (by default the scan-out layout, bytes B, G, R, X; FFmpeg's
    /// bgr0), drawn by `draw`, then handed on as a decoded still is (scaler, layers,
    /// transitions, screenshots). Throws a `MediaError` naming `source` when the size is past
    /// kiosk's limits or memory runs out.
    public static func painted(size: PixelSize, source: String, format: AVPixelFormat = AV_PIX_FMT_BGR0,
                               _ draw: (PixelBuffer) -> Void) throws -> DecodedFrame {
        let limit = Asset.maximumPictureSize
        guard size.width > 0, size.height > 0, size.width <= limit.width, size.height <= limit.height else {
            throw MediaError(source: source, reason: "cannot draw a \(size) picture; kiosk draws up to \(limit)")
        }
        guard let frame = av_frame_alloc() else { throw MediaError(source: source, reason: "out of memory for a frame") }
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        guard av_frame_get_buffer(frame, 0) >= 0, let base = frame.pointee.data.0 else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            throw MediaError(source: source, reason: "out of memory for a frame")
        }
        draw(PixelBuffer(base: UnsafeMutableRawPointer(base), size: size, stride: Int(frame.pointee.linesize.0), index: 0))
        return DecodedFrame(taking: frame, pts: .zero, sampleAspect: .one, rotation: .none)
    }

    /// What `get item` says of a painted picture: a still kiosk drew, no codec.
    public static func paintedInfo(source: String, frame: DecodedFrame) -> MediaInfo {
        var stream = StreamInfo(index: 0, kind: .video, codecName: "none (drawn by kiosk)", decodable: true, isDefaultChoice: true)
        stream.width = frame.size.width
        stream.height = frame.size.height
        stream.pixelFormat = frame.pixelFormatName
        stream.sampleAspectRatio = .one
        stream.rotation = 0
        stream.isStillImage = true
        return MediaInfo(source: source, formatName: "text card", streams: [stream])
    }
}
