import CFFmpeg
import CHeif
import Glibc
import KioskCore

/// A HEIF still (a phone's HEIC; AVIF where libheif has an AV1 decoder) as a `DecodedFrame`:
/// FFmpeg 5.1 cannot open these files, so libheif decodes the primary image, upright, into
/// 8-bit YUV 4:2:0 planes that an AVFrame then wraps without a copy. From there the frame goes
/// the way a JPEG's does (scaler, gravity, region, layers, transitions, screenshots).
public enum HeifStill {
    /// Whether `source` is decoded with libheif rather than FFmpeg: a local file named .heic,
    /// .heif or .avif, or (with `sniff`) one whose first bytes are a HEIF file's (a phone photo
    /// renamed .jpg). URLs stay FFmpeg's: libheif reads local files only.
    public static func handles(_ source: String, sniff: Bool = true) -> Bool {
        guard !source.contains("://"), !source.hasPrefix("lavfi:") else { return false }
        if PlaylistExpander.hasHeifExtension(source) { return true }
        return sniff && HeifSniff.isHeif(firstBytes(of: source))
    }

    /// A picture file's one frame, upright, whoever decodes it: libheif for a HEIF still, else
    /// FFmpeg (a large JPEG no larger than covering `stillScreen`, when given). For the splash
    /// and the layers' pictures, which take any still a playlist does.
    public static func firstFrame(of path: String, stillScreen: PixelSize? = nil) throws -> DecodedFrame {
        if let heif = try decodeIfHeif(path) { return heif }
        let reader = try VideoFrameReader(asset: try Asset(source: path), stillScreen: stillScreen)
        guard let frame = try reader.nextFrame() else { throw MediaError(source: path, reason: "no picture in it") }
        return frame
    }

    /// The frame of `path` when libheif decodes it (see `handles`), nil for anything else.
    public static func decodeIfHeif(_ path: String) throws -> DecodedFrame? {
        handles(path) ? try decode(path) : nil
    }

    /// Decodes the primary image of `path`. Throws a `MediaError` naming the file: libheif's
    /// reason for a damaged or truncated one, the limit for one too large to decode.
    public static func decode(_ path: String) throws -> DecodedFrame {
        let (handle, size) = try checkedPrimaryImage(path)
        let image = try handle.decodeYUV420()
        return try frame(of: image, size: size, path: path)
    }

    /// What `kiosk probe` says of a HEIF still, from its boxes alone (the picture is not
    /// decoded: a 12 MP photo would cost ~20 MB and a second for a size the file states), with
    /// the checks a play makes before decoding: a damaged header, a size past kiosk's limits,
    /// AVIF without an AV1 decoder. A coded picture damaged past its boxes shows when it plays,
    /// as a video's damaged frames do.
    public static func probe(_ path: String) throws -> MediaInfo {
        let (_, size) = try checkedPrimaryImage(path)
        return info(of: path, size: size, pixelFormat: "yuv420p")
    }

    /// The primary image's handle and size, after every check made before decoding.
    private static func checkedPrimaryImage(_ path: String) throws -> (HeifImageHandle, PixelSize) {
        try Asset.checkLocalFile(path)
        let heif = try LibHeif.api(for: path)
        let start = firstBytes(of: path)
        if HeifSniff.mimeType(start, heif: heif) == "image/avif" && !HeifSniff.decodesAV1(heif: heif) {
            throw MediaError(source: path, reason: "AVIF: this machine's libheif has no AV1 decoder (Debian: libheif-plugin-dav1d)")
        }
        let handle = try HeifContext(path: path, heif: heif).primaryImage()
        let size = handle.size
        // Checked before decoding, from the file's boxes: the decoding is what costs memory.
        let limit = Asset.maximumPictureSize
        guard size.width > 0, size.height > 0 else {
            throw MediaError(source: path, reason: "libheif reads a \(size.width)x\(size.height) picture")
        }
        guard size.width <= limit.width, size.height <= limit.height else {
            throw MediaError(source: path, reason: "picture is \(size); kiosk plays up to \(limit)")
        }
        // libheif decodes an alpha plane too when there is one, though a still shows without it.
        if let refusal = StillSizeLimit.heifRefusal(picture: size, bitsPerPixel: handle.hasAlpha ? 20 : 12) {
            throw MediaError(source: path, reason: refusal)
        }
        return (handle, size)
    }

    /// What `kiosk probe` and the engine know of a HEIF still (FFmpeg's probe cannot say).
    public static func info(of path: String, frame: DecodedFrame) -> MediaInfo {
        info(of: path, size: frame.size, pixelFormat: frame.pixelFormatName)
    }

    private static func info(of path: String, size: PixelSize, pixelFormat: String) -> MediaInfo {
        // After a decode or a probe: the library is open.
        let mime = (try? LibHeif.api(for: path)).map { HeifSniff.mimeType(firstBytes(of: path), heif: $0) } ?? ""
        let isAVIF = mime == "image/avif"
        var stream = StreamInfo(index: 0, kind: .video, codecName: isAVIF ? "av1" : "hevc", decodable: true,
                                isDefaultChoice: true)
        stream.width = size.width
        stream.height = size.height
        stream.pixelFormat = pixelFormat
        stream.sampleAspectRatio = .one
        stream.rotation = 0
        stream.isStillImage = true
        return MediaInfo(source: path, formatName: isAVIF ? "avif (libheif)" : "heif (libheif)", streams: [stream])
    }

    /// An AVFrame over libheif's planes: its one buffer releases the heif_image when FFmpeg
    /// drops the last reference, so the picture is in memory once, not twice.
    private static func frame(of image: HeifImage, size: PixelSize, path: String) throws -> DecodedFrame {
        guard image.isYUV420, let luma = image.plane(heif_channel_Y), let blue = image.plane(heif_channel_Cb),
              let red = image.plane(heif_channel_Cr) else {
            throw MediaError(source: path, reason: "libheif did not give 8-bit YUV 4:2:0 planes")
        }
        guard let frame = av_frame_alloc() else { throw MediaError(source: path, reason: "out of memory for a frame") }
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(size.width)
        frame.pointee.height = Int32(size.height)
        frame.pointee.data.0 = UnsafeMutablePointer(mutating: luma.base)
        frame.pointee.data.1 = UnsafeMutablePointer(mutating: blue.base)
        frame.pointee.data.2 = UnsafeMutablePointer(mutating: red.base)
        frame.pointee.linesize.0 = Int32(luma.stride)
        frame.pointee.linesize.1 = Int32(blue.stride)
        frame.pointee.linesize.2 = Int32(red.stride)
        tagColour(frame, image.colour)
        let owned = image.takeImage()!
        let release: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = { opaque, _ in
            kiosk_heif_image_release(OpaquePointer(opaque)!)
        }
        guard let buffer = av_buffer_create(UnsafeMutablePointer(mutating: luma.base), luma.stride * size.height, release,
                                            UnsafeMutableRawPointer(owned), 0) else {
            kiosk_heif_image_release(owned)
            var pointer: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&pointer)
            throw MediaError(source: path, reason: "out of memory for a frame")
        }
        // buf[0] alone holds the whole image (all three planes): av_frame_ref and av_frame_free
        // only count references through the buf[] entries that are set.
        frame.pointee.buf.0 = buffer
        return DecodedFrame(taking: frame, pts: .zero, sampleAspect: .one, rotation: .none)
    }

    /// Tags the frame as libheif's own RGB conversion would read it: the nclx when there is
    /// one, else libheif's default (BT.601, full range: what iPhones write); an unspecified
    /// matrix is BT.601 there too, not the HD guess ScalerColor makes for untagged video.
    static func tagColour(_ frame: UnsafeMutablePointer<AVFrame>,
                          _ colour: (matrix: Int, primaries: Int, transfer: Int, fullRange: Bool)?) {
        let unspecified = Int(AVCOL_SPC_UNSPECIFIED.rawValue)
        let matrix = colour.map { $0.matrix == unspecified ? Int(AVCOL_SPC_SMPTE170M.rawValue) : $0.matrix }
            ?? Int(AVCOL_SPC_SMPTE170M.rawValue)
        // H.273's code points are FFmpeg's AVColorSpace/AVColorPrimaries/AVColorTransferCharacteristic values.
        frame.pointee.colorspace = AVColorSpace(rawValue: UInt32(matrix))
        frame.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(colour?.primaries ?? unspecified))
        frame.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(colour?.transfer ?? unspecified))
        frame.pointee.color_range = (colour?.fullRange ?? true) ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
    }

    /// A file's first 32 bytes (enough for its ftyp box's brands); empty when unreadable.
    static func firstBytes(of path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        return count > 0 ? Array(bytes.prefix(count)) : []
    }
}
