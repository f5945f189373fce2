import CFFmpeg
import KioskCore

/// A layer's picture (kiosk.conf `layers`, `image`): the file's first frame through FFmpeg
/// (PNG keeps its transparency: decoded as RGBA, scaled to BGRA with swscale, which carries
/// the alpha), at the size the layer takes on the screen. Loaded once per layer and screen
/// size, so the scaling's cost does not matter; the blending each frame is `PixelBuffer.blend`.
public enum LayerImageLoader {
    /// The picture at the size `size` gives for its own (default: its own size), as
    /// non-premultiplied 0xAARRGGBB pixels.
    public static func load(_ path: String, size: (PixelSize) -> PixelSize = { $0 }) throws -> LayerImage {
        let frame = try firstFrame(of: path)
        return try load(frame, named: path, size: size(frame.size))
    }

    /// The first frame, checked for a size a layer can take (a 16k logo is an error, not a
    /// gigabyte of pixels).
    static func firstFrame(of path: String) throws -> DecodedFrame {
        let frame = try HeifStill.firstFrame(of: path)
        let size = frame.size
        guard size.width > 0, size.height > 0, size.width <= 8192, size.height <= 8192 else {
            throw MediaError(source: path, reason: "a \(size.width)x\(size.height) picture; a layer takes up to 8192x8192")
        }
        return frame
    }

    static func load(_ frame: DecodedFrame, named path: String, size: PixelSize) throws -> LayerImage {
        let source = frame.size
        guard size.width > 0, size.height > 0, size.width <= DisplaySpec.largestSide, size.height <= DisplaySpec.largestSide else {
            throw MediaError(source: path, reason: "cannot be drawn \(size.width)x\(size.height)")
        }
        guard let context = sws_getContext(Int32(source.width), Int32(source.height), AVPixelFormat(frame.frame.pointee.format),
                                           Int32(size.width), Int32(size.height), AV_PIX_FMT_BGRA,
                                           Int32(SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil) else {
            throw MediaError(source: path, reason: "swscale cannot convert \(frame.pixelFormatName) to BGRA")
        }
        defer { sws_freeContext(context) }
        var pixels = [UInt32](repeating: 0, count: size.width * size.height)
        let height = pixels.withUnsafeMutableBytes { bytes -> Int32 in
            var planes: [UnsafeMutablePointer<UInt8>?] = [bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
            var strides: [Int32] = [Int32(size.width * 4), 0, 0, 0]
            let data = withUnsafeBytes(of: &frame.frame.pointee.data) { Array($0.bindMemory(to: UnsafePointer<UInt8>?.self)) }
            let lines = withUnsafeBytes(of: &frame.frame.pointee.linesize) { Array($0.bindMemory(to: Int32.self)) }
            return sws_scale(context, data, lines, 0, Int32(source.height), &planes, &strides)
        }
        guard height == Int32(size.height) else {
            throw MediaError(source: path, reason: "swscale wrote \(height) of \(size.height) rows")
        }
        // BGRA bytes on a little-endian machine are 0xAARRGGBB words; a picture without alpha
        // comes out opaque (swscale fills 255).
        return LayerImage(width: size.width, height: size.height, pixels: pixels)
    }
}
