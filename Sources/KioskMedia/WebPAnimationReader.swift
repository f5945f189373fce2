import CFFmpeg
import CKioskShim
import Foundation
import KioskCore

/// An animated WebP, decoded by libwebpdemux (opened on first use): FFmpeg 5.1 and 7.1 decode
/// WebP stills only. Each frame comes out as the whole canvas (libwebp composes each frame's
/// rectangle, blending and disposal onto it) in RGBA, copied into a frame of its own that the
/// scaler takes as a PNG's, with its own time. Played once per play of the item, as a GIF is
/// (the file's loop count is the playlist's business).
public final class WebPAnimationReader {
    public let size: PixelSize
    public let frameCount: Int
    private let source: String
    private let bytes: UnsafeMutableRawBufferPointer
    private let decoder: OpaquePointer
    /// Where the next frame begins, in milliseconds of the animation.
    private var clock = 0
    private var lastDecoderTime = 0

    /// The largest file read, and the largest canvas (as for a WebP still: 16 MP, 64 MB a frame).
    static let largestFile = 128 << 20
    static let largestCanvasPixels = 16_000_000
    /// A frame shown for less is shown this long, as browsers do (a 0 ms delay is "as fast as
    /// you can", which they slow to 100 ms).
    static let shortestFrameMilliseconds = 20
    static let shortFrameMilliseconds = 100

    public init(path: String) throws {
        source = path
        if let reason = kiosk_webp_anim_load() {
            throw MediaError(source: path, reason: "an animated WebP, and libwebpdemux cannot be opened: \(String(cString: reason)) "
                             + "(Debian: apt install libwebpdemux2)")
        }
        try Asset.checkLocalFile(path)
        guard let data = FileManager.default.contents(atPath: path) else { throw MediaError(source: path, reason: "cannot be read") }
        guard data.count <= Self.largestFile else {
            throw MediaError(source: path, reason: "an animated WebP of \(data.count >> 20) MB; kiosk reads up to \(Self.largestFile >> 20) MB")
        }
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: bytes.bindMemory(to: UInt8.self))
        guard let made = kiosk_webp_anim_decoder_new(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count) else {
            bytes.deallocate()
            throw MediaError(source: path, reason: "a damaged animated WebP (libwebpdemux cannot read its frames)")
        }
        decoder = made
        var info = kiosk_webp_anim_info()
        guard kiosk_webp_anim_decoder_info(made, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
            kiosk_webp_anim_decoder_delete(made)
            bytes.deallocate()
            throw MediaError(source: path, reason: "a damaged animated WebP (no canvas size)")
        }
        size = PixelSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        frameCount = Int(info.frame_count)
        guard size.width * size.height <= Self.largestCanvasPixels else {
            kiosk_webp_anim_decoder_delete(made)
            bytes.deallocate()
            throw MediaError(source: path, reason: "an animated WebP of \(size.width)x\(size.height); kiosk plays animations up to 16 MP")
        }
    }

    deinit {
        kiosk_webp_anim_decoder_delete(decoder)
        bytes.deallocate()
    }

    /// Back to the first frame.
    public func rewind() {
        kiosk_webp_anim_decoder_reset(decoder)
        clock = 0
        lastDecoderTime = 0
    }

    /// The next frame, stamped with its start, and the time it ends; nil after the last.
    /// Throws when a frame cannot be decoded (a truncated file: the frames before it played).
    public func next() throws -> (frame: DecodedFrame, end: MediaTime)? {
        guard kiosk_webp_anim_decoder_has_more(decoder) != 0 else { return nil }
        var canvas: UnsafeMutablePointer<UInt8>?
        var ends: Int32 = 0
        guard kiosk_webp_anim_decoder_next(decoder, &canvas, &ends) != 0, let canvas else {
            throw MediaError(source: source, reason: "a damaged animated WebP: a frame after \(clock) ms cannot be decoded")
        }
        let own = Int(ends) - lastDecoderTime
        lastDecoderTime = Int(ends)
        let start = clock
        clock += own < Self.shortestFrameMilliseconds ? Self.shortFrameMilliseconds : own
        let frame = try copy(canvas)
        return (DecodedFrame(taking: frame, pts: MediaTime(value: Int64(start), timescale: 1000), sampleAspect: .one, rotation: .none),
                MediaTime(value: Int64(clock), timescale: 1000))
    }

    /// The canvas (RGBA rows, no padding) in a frame of its own: libwebp reuses it.
    private func copy(_ canvas: UnsafeMutablePointer<UInt8>) throws -> UnsafeMutablePointer<AVFrame> {
        guard let frame = av_frame_alloc() else { throw MediaError(source: source, reason: "out of memory for a frame") }
        frame.pointee.format = AV_PIX_FMT_RGBA.rawValue
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        guard av_frame_get_buffer(frame, 0) >= 0, let base = frame.pointee.data.0 else {
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            throw MediaError(source: source, reason: "out of memory for a frame")
        }
        let row = size.width * 4, stride = Int(frame.pointee.linesize.0)
        for y in 0..<size.height { (base + y * stride).update(from: canvas + y * row, count: row) }
        return frame
    }

    /// `kiosk probe`'s view: every frame decoded (an animation's length is the sum of its
    /// frames' times, which its header does not state).
    public static func probe(_ path: String) throws -> MediaInfo {
        let reader = try WebPAnimationReader(path: path)
        var first: MediaTime?, length = MediaTime.zero
        while let (frame, end) = try reader.next() {
            if first == nil { first = end - frame.pts }
            length = end
        }
        return reader.info(length: length, cadence: first)
    }

    /// What `get item` and `kiosk probe` say of it; `cadence`: a frame's time, the frame rate
    /// the presenter expects until it sees frames.
    public func info(length: MediaTime?, cadence: MediaTime? = nil) -> MediaInfo {
        var stream = StreamInfo(index: 0, kind: .video, codecName: "webp (animated, libwebpdemux)", decodable: true, isDefaultChoice: true)
        stream.width = size.width
        stream.height = size.height
        stream.pixelFormat = "rgba"
        stream.sampleAspectRatio = .one
        stream.rotation = 0
        stream.isStillImage = false
        if let cadence, cadence > .zero { stream.frameRate = Rational(1000, max(1, Int64((cadence.seconds * 1000).rounded()))) }
        return MediaInfo(source: source, formatName: "webp (animated)", durationSeconds: length?.seconds, streams: [stream])
    }
}
