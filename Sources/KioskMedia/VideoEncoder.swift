import CFFmpeg
import CKioskShim
import KioskCore

/// H.264 through libavcodec's libx264, 4:2:0, BT.601 limited range (what swscale writes from
/// RGB). Takes XRGB buffers (what the `Scaler` lays a frame out into, gravity and rotation
/// applied) or decoded frames of any format at the output size (a capture device's); converts
/// them with swscale into its own picture and encodes that.
public final class VideoEncoder {
    public let size: PixelSize
    let encoder: EncoderContext
    private let picture: UnsafeMutablePointer<AVFrame>
    private var converter: OpaquePointer?
    /// One frame at the nominal rate, in the time base.
    private let frameDuration: Int64

    /// `timeBase`: the unit of the pts given to `encode` (1/fps for a constant rate).
    /// `frameRate`: the nominal rate (the muxer's and the rate control's hint).
    public init(size: PixelSize, timeBase: Rational, frameRate: Rational, preset: String = "veryfast", crf: Int = 20) throws {
        precondition(size.width % 2 == 0 && size.height % 2 == 0, "4:2:0 needs even sizes")
        self.size = size
        frameDuration = max(1, MediaTime(value: frameRate.denominator, timescale: Int32(clamping: frameRate.numerator)).ticks(in: timeBase))
        encoder = try EncoderContext(name: "libx264", globalHeader: true,
                                     options: ["preset": preset, "crf": String(crf)]) { context in
            context.pointee.width = Int32(size.width)
            context.pointee.height = Int32(size.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: Int32(timeBase.numerator), den: Int32(timeBase.denominator))
            context.pointee.framerate = AVRational(num: Int32(frameRate.numerator), den: Int32(frameRate.denominator))
            context.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            // A keyframe every 2 s: seeking and a playlist's seams stay cheap.
            context.pointee.gop_size = Int32(max(1, (frameRate.doubleValue * 2).rounded()))
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.colorspace = AVCOL_SPC_SMPTE170M
            context.pointee.color_primaries = AVCOL_PRI_SMPTE170M
            context.pointee.color_trc = AVCOL_TRC_SMPTE170M
        }
        guard let picture = av_frame_alloc() else { throw EncoderError("out of memory") }
        self.picture = picture
        picture.pointee.width = Int32(size.width)
        picture.pointee.height = Int32(size.height)
        picture.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        guard av_frame_get_buffer(picture, 0) >= 0 else { throw EncoderError("out of memory") }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = picture
        av_frame_free(&pointer)
        sws_freeContext(converter)
    }

    /// Encodes an XRGB8888 buffer of the output size at `pts` (in the time base).
    public func encode(_ buffer: PixelBuffer, pts: Int64, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        precondition(buffer.size == size, "a buffer of another size")
        var planes: [UnsafePointer<UInt8>?] = [UnsafePointer(buffer.base.assumingMemoryBound(to: UInt8.self)), nil, nil, nil]
        var strides: [Int32] = [Int32(buffer.stride), 0, 0, 0]
        try convert(width: size.width, height: size.height, format: AV_PIX_FMT_BGR0, planes: &planes, strides: &strides)
        try send(pts: pts, sink: sink)
    }

    /// Encodes a decoded frame (any size and pixel format swscale reads: scaled to the output
    /// size as it is, no gravity) at `pts`.
    public func encode(_ frame: DecodedFrame, pts: Int64, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let source = frame.frame
        var planes: [UnsafePointer<UInt8>?] = (0..<4).map { index in
            withUnsafePointer(to: &source.pointee.data) {
                $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { UnsafePointer($0[index]) }
            }
        }
        var strides: [Int32] = (0..<4).map { index in
            withUnsafePointer(to: &source.pointee.linesize) { $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0[index] } }
        }
        try convert(width: Int(source.pointee.width), height: Int(source.pointee.height), format: AVPixelFormat(source.pointee.format),
                    planes: &planes, strides: &strides)
        try send(pts: pts, sink: sink)
    }

    /// The end: what the encoder still holds (B-frames, lookahead) comes out.
    public func finish(sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        try encoder.encode(nil) { try stamped($0, sink) }
    }

    /// A packet's duration (the mp4's last sample needs one): one nominal frame when the
    /// encoder leaves it unset.
    private func stamped(_ packet: UnsafeMutablePointer<AVPacket>, _ sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if packet.pointee.duration <= 0 { packet.pointee.duration = frameDuration }
        try sink(packet)
    }

    public var timeBase: AVRational { encoder.timeBase }

    private func convert(width: Int, height: Int, format: AVPixelFormat,
                         planes: inout [UnsafePointer<UInt8>?], strides: inout [Int32]) throws {
        // The encoder may still hold the last picture: write into a fresh one if so.
        guard av_frame_make_writable(picture) >= 0 else { throw EncoderError("out of memory") }
        converter = sws_getCachedContext(converter, Int32(width), Int32(height), format,
                                         Int32(size.width), Int32(size.height), AV_PIX_FMT_YUV420P,
                                         SWS_BILINEAR, nil, nil, nil)
        guard let converter else { throw EncoderError("swscale cannot convert this picture to yuv420p") }
        var outPlanes: [UnsafeMutablePointer<UInt8>?] = [picture.pointee.data.0, picture.pointee.data.1, picture.pointee.data.2, nil]
        var outStrides: [Int32] = [picture.pointee.linesize.0, picture.pointee.linesize.1, picture.pointee.linesize.2, 0]
        let rows = sws_scale(converter, &planes, &strides, 0, Int32(height), &outPlanes, &outStrides)
        guard rows == Int32(size.height) else { throw EncoderError("swscale wrote \(rows) of \(size.height) rows") }
    }

    private func send(pts: Int64, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        picture.pointee.pts = pts
        try encoder.encode(picture) { try stamped($0, sink) }
    }
}
