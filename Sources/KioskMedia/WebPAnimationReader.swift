import CFFmpeg
import CKioskShim
import Glibc
import KioskCore

/// An animated WebP, decoded by libwebpdemux (opened on first use): FFmpeg 5.1 and 7.1 decode
/// WebP stills only. Each frame comes out as the whole canvas (libwebp composes each frame's
/// rectangle, blending and disposal onto it) in RGBA, copied into a frame of its own that the
/// scaler takes as a PNG's, with its own time. Played once per play of the item, as a GIF is
/// (its loop count, `loopCount`, is the playlist's business).
public final class WebPAnimationReader {
    public let size: PixelSize
    public let frameCount: Int
    /// The sum of its frames' times, read from its frame headers at open (no frame decoded).
    public let length: MediaTime
    /// How many times the file says it plays (0: forever), as libwebpdemux reads it.
    public let loopCount: Int
    private let source: String
    private let bytes: UnsafeMutableRawBufferPointer
    private let decoder: OpaquePointer
    /// Where the next frame begins, in milliseconds of the animation.
    private var clock = 0
    private var lastDecoderTime = 0

    /// The largest file read, and the largest canvas (as a WebP still's: 16 MP).
    static let largestFile = 128 << 20
    static let largestCanvasPixels = 16_000_000
    /// A frame shown for less is shown this long, as browsers do (a 0 ms delay is "as fast as
    /// you can", which they slow to 100 ms).
    static let shortestFrameMilliseconds = 20
    static let shortFrameMilliseconds = 100

    /// Throws a `MediaError` naming `path`: libwebpdemux missing, not a regular file, too large
    /// a file or canvas (said before anything is decoded), damaged (libwebp reads the whole
    /// file's structure at open: a truncated one is refused here).
    public init(path: String) throws {
        if let reason = kiosk_webp_anim_load() {
            throw MediaError(source: path, reason: "an animated WebP, and libwebpdemux cannot be opened: \(String(cString: reason)) "
                             + "(Debian: apt install libwebpdemux2)")
        }
        try Asset.checkLocalFile(path)
        let file = try Self.read(path)
        let header = Array(UnsafeRawBufferPointer(rebasing: file[0..<min(file.count, 30)]))
        guard let canvas = Self.canvasSize(header: header) else {
            file.deallocate()
            throw MediaError(source: path, reason: "a damaged animated WebP (no VP8X header)")
        }
        guard canvas.width * canvas.height <= Self.largestCanvasPixels else {
            file.deallocate()
            throw MediaError(source: path, reason: "an animated WebP of \(canvas.width)x\(canvas.height); kiosk plays animations up to 16 MP")
        }
        guard let made = kiosk_webp_anim_decoder_new(file.baseAddress!.assumingMemoryBound(to: UInt8.self), file.count) else {
            file.deallocate()
            throw MediaError(source: path, reason: "a damaged animated WebP (libwebpdemux cannot read its frames)")
        }
        var info = kiosk_webp_anim_info()
        guard kiosk_webp_anim_decoder_info(made, &info) != 0, info.canvas_width > 0, info.canvas_height > 0, info.frame_count > 0,
              Int(info.canvas_width) * Int(info.canvas_height) <= Self.largestCanvasPixels else {
            kiosk_webp_anim_decoder_delete(made)
            file.deallocate()
            throw MediaError(source: path, reason: "a damaged animated WebP (no frames, or no canvas size within 16 MP)")
        }
        // Stored last: a throw above leaves nothing for deinit to free twice.
        length = MediaTime(value: Int64(Self.frameTimes(UnsafeRawBufferPointer(file)).reduce(0, +)), timescale: 1000)
        size = PixelSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        frameCount = Int(info.frame_count)
        loopCount = Int(info.loop_count)
        source = path
        bytes = file
        decoder = made
    }

    deinit {
        kiosk_webp_anim_decoder_delete(decoder)
        bytes.deallocate()
    }

    /// The whole file in memory of its own (libwebp reads frames from it as it goes).
    private static func read(_ path: String) throws -> UnsafeMutableRawBufferPointer {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)   // a path swapped for a FIFO must not block
        guard descriptor >= 0 else { throw MediaError(source: path, reason: "cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw MediaError(source: path, reason: "not a regular file")
        }
        let count = Int(status.st_size)
        guard count <= largestFile else {
            throw MediaError(source: path, reason: "an animated WebP of \(count >> 20) MB; kiosk reads up to \(largestFile >> 20) MB")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 16)
        var done = 0
        while done < count {
            let got = Glibc.read(descriptor, buffer.baseAddress! + done, count - done)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                buffer.deallocate()
                throw MediaError(source: path, reason: "cannot be read to its end")
            }
            done += got
        }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    }

    /// The canvas size its VP8X chunk states (24-bit width and height less one, bytes 24-29).
    static func canvasSize(header: [UInt8]) -> PixelSize? {
        guard header.count >= 30, header[12..<16].elementsEqual("VP8X".utf8) else { return nil }
        func uint24(_ at: Int) -> Int { Int(header[at]) | Int(header[at + 1]) << 8 | Int(header[at + 2]) << 16 }
        return PixelSize(width: uint24(24) + 1, height: uint24(27) + 1)
    }

    /// Each frame's time in milliseconds as it plays (a short one lengthened), from its ANMF
    /// chunk's 24-bit duration (bytes 12-14 of its payload), walking the RIFF chunks.
    static func frameTimes(_ file: UnsafeRawBufferPointer) -> [Int] {
        var times: [Int] = []
        var offset = 12
        // Within the RIFF size, as libwebp reads it: bytes after it are not the animation's.
        let riff = file.count >= 8 ? Int(file[4]) | Int(file[5]) << 8 | Int(file[6]) << 16 | Int(file[7]) << 24 : 0
        let end = Swift.min(file.count, riff + 8)
        while offset + 8 <= end {
            let tag = Array(file[offset..<(offset + 4)])
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
            if tag.elementsEqual("ANMF".utf8), offset + 8 + 15 <= end {
                let at = offset + 8 + 12
                times.append(played(Int(file[at]) | Int(file[at + 1]) << 8 | Int(file[at + 2]) << 16))
            }
            guard size >= 0, size <= end else { break }
            offset += 8 + size + (size & 1)
        }
        return times
    }

    private static func played(_ milliseconds: Int) -> Int {
        milliseconds < shortestFrameMilliseconds ? shortFrameMilliseconds : milliseconds
    }

    /// Back to the first frame.
    public func rewind() {
        kiosk_webp_anim_decoder_reset(decoder)
        clock = 0
        lastDecoderTime = 0
    }

    /// One decoded frame: its start and end, and the canvas, valid until the next `advance`
    /// or `rewind` (`frame(of:)` copies it).
    public struct Step {
        public let start: MediaTime
        public let end: MediaTime
        fileprivate let canvas: UnsafeMutablePointer<UInt8>

        /// The same frame `offset` later: a later pass of a looped animation.
        public func later(by offset: MediaTime) -> Step {
            offset == .zero ? self : Step(start: start + offset, end: end + offset, canvas: canvas)
        }
    }

    /// Decodes the next frame; nil after the last. Throws when a frame cannot be decoded.
    public func advance() throws -> Step? {
        guard kiosk_webp_anim_decoder_has_more(decoder) != 0 else { return nil }
        var canvas: UnsafeMutablePointer<UInt8>?
        var ends: Int32 = 0
        guard kiosk_webp_anim_decoder_next(decoder, &canvas, &ends) != 0, let canvas else {
            throw MediaError(source: source, reason: "a damaged animated WebP: a frame after \(clock) ms cannot be decoded")
        }
        let start = clock
        clock += Self.played(Int(ends) - lastDecoderTime)
        lastDecoderTime = Int(ends)
        return Step(start: MediaTime(value: Int64(start), timescale: 1000), end: MediaTime(value: Int64(clock), timescale: 1000),
                    canvas: canvas)
    }

    /// The next frame, stamped with its start, and the time it ends; nil after the last.
    public func next() throws -> (frame: DecodedFrame, end: MediaTime)? {
        guard let step = try advance() else { return nil }
        return (try frame(of: step), step.end)
    }

    /// The step's canvas (RGBA rows, no padding) in a frame of its own, stamped with its start.
    public func frame(of step: Step) throws -> DecodedFrame {
        let row = size.width * 4
        let frame = try DecodedFrame.painted(size: size, source: source, format: AV_PIX_FMT_RGBA) { buffer in
            for y in 0..<size.height { (buffer.base + y * buffer.stride).copyMemory(from: step.canvas + y * row, byteCount: row) }
        }
        frame.restamp(to: step.start)
        frame.ownDuration = step.end - step.start
        return frame
    }

    /// `kiosk probe`'s and `get item`'s view: its length from its frame headers.
    public static func probe(_ path: String) throws -> MediaInfo {
        try WebPAnimationReader(path: path).info
    }

    /// What `get item` and `kiosk probe` say of it; the frame rate is the first frame's, what
    /// the presenter expects until it sees frames.
    public var info: MediaInfo {
        var stream = StreamInfo(index: 0, kind: .video, codecName: "webp (animated, libwebpdemux)", decodable: true, isDefaultChoice: true)
        stream.width = size.width
        stream.height = size.height
        stream.pixelFormat = "rgba"
        stream.sampleAspectRatio = .one
        stream.rotation = 0
        stream.isStillImage = false
        if let first = Self.frameTimes(UnsafeRawBufferPointer(bytes)).first { stream.frameRate = Rational(1000, Int64(first)) }
        return MediaInfo(source: source, formatName: "webp (animated)", durationSeconds: length.seconds, streams: [stream])
    }
}
