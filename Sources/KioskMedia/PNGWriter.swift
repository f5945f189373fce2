import CFFmpeg
import Glibc
import KioskCore
import SystemPackage

/// Saves what a display buffer holds as a PNG, with FFmpeg's own encoder: snapshots and
/// headless previews show exactly the pixels a screen would scan out.
public enum PNGWriter {
    public static func write(_ buffer: PixelBuffer, to path: String) throws {
        let size = buffer.size
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else { throw fail(path, "no PNG encoder in this FFmpeg build") }
        var codecContext = avcodec_alloc_context3(codec)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer { avcodec_free_context(&codecContext); av_frame_free(&frame); av_packet_free(&packet) }
        guard let codecContext, let frame, let packet else { throw fail(path, "out of memory") }
        codecContext.pointee.width = Int32(size.width)
        codecContext.pointee.height = Int32(size.height)
        codecContext.pointee.pix_fmt = AV_PIX_FMT_RGB24
        codecContext.pointee.time_base = AVRational(num: 1, den: 1)
        var result = avcodec_open2(codecContext, codec, nil)
        guard result >= 0 else { throw fail(path, "cannot open the PNG encoder: \(ffmpegErrorText(result))") }

        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        result = av_frame_get_buffer(frame, 0)
        guard result >= 0 else { throw fail(path, "out of memory for a \(size) picture") }
        try convertToRGB(buffer, into: frame, path: path)

        result = avcodec_send_frame(codecContext, frame)
        if result >= 0 { result = avcodec_send_frame(codecContext, nil) }
        if result >= 0 { result = avcodec_receive_packet(codecContext, packet) }
        guard result >= 0 else { throw fail(path, "PNG encoding failed: \(ffmpegErrorText(result))") }
        try writeFile(path, bytes: UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    private static func convertToRGB(_ buffer: PixelBuffer, into frame: UnsafeMutablePointer<AVFrame>, path: String) throws {
        let w = Int32(buffer.size.width), h = Int32(buffer.size.height)
        guard let sws = sws_getContext(w, h, AV_PIX_FMT_BGR0, w, h, AV_PIX_FMT_RGB24, SWS_POINT, nil, nil, nil) else {
            throw fail(path, "swscale cannot convert XRGB8888 to RGB")
        }
        defer { sws_freeContext(sws) }
        var sourcePlanes: [UnsafePointer<UInt8>?] = [UnsafePointer(buffer.base.assumingMemoryBound(to: UInt8.self)), nil, nil, nil]
        var sourceStrides: [Int32] = [Int32(buffer.stride), 0, 0, 0]
        let destinationPlanes = withUnsafeMutablePointer(to: &frame.pointee.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0 }
        }
        let destinationStrides = withUnsafeMutablePointer(to: &frame.pointee.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0 }
        }
        sws_scale(sws, &sourcePlanes, &sourceStrides, 0, h, destinationPlanes, destinationStrides)
    }

    /// Whole or not at all, so a reader never sees half a picture; not fsynced (`durable`:
    /// a screenshot is not worth a stall on a slow card).
    private static func writeFile(_ path: String, bytes: UnsafeRawBufferPointer) throws {
        do {
            try AtomicFile.write(bytes, to: path, durable: false)
        } catch {
            throw fail(path, "cannot write: \(Errno(rawValue: error.code).description)")
        }
    }

    /// The errno text (strerror) for a failed call.
    private static func text(_ error: any Error) -> String {
        guard let code = error as? Errno else { return "\(error)" }
        return code.description
    }

    private static func fail(_ path: String, _ reason: String) -> MediaError {
        MediaError(source: path, reason: reason)
    }
}
