import CFFmpeg
import CKioskShim
import Glibc
import KioskCore

/// Stands a still upright: finds its EXIF orientation where FFmpeg left it and mirrors its
/// decoded pixels when the orientation has a mirror; the quarter turn is left to the frame's
/// `rotation` (the scaler or the display plane turn it, as for a video's rotation tag).
/// A still is decoded once, so the mirror's copy costs once per item.
final class StillOrientation {
    private let stream: UnsafeMutablePointer<AVStream>
    /// A PNG's own eXIf chunk, read from the file (FFmpeg 5.1's PNG decoder drops it).
    private let pngExif: PictureOrientation?
    private let source: String
    private var saidMirrorFailed = false

    /// Only for a single picture (see `isStill`); nil for anything else.
    init?(asset: Asset, streamIndex: Int) {
        guard StillOrientation.isStill(asset: asset, streamIndex: streamIndex) else { return nil }
        stream = asset.stream(at: streamIndex)
        source = asset.source
        pngExif = stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_PNG
            ? StillOrientation.pngExifOrientation(path: asset.source) : nil
    }

    /// A single picture: FFmpeg's image2 demuxer or one of its image pipes (jpeg_pipe,
    /// png_pipe, webp_pipe...), or a cover picture. A camera's MJPEG video is not one: its
    /// frames are not mirrored one by one.
    static func isStill(asset: Asset, streamIndex: Int) -> Bool {
        let stream = asset.stream(at: streamIndex)
        if (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 { return true }
        return asset.info.isPictureFile
    }

    /// The orientation of `frame` and where it was found, in ffplay's order: the frame's
    /// display matrix (FFmpeg 5.1's mjpeg sets it from EXIF), the stream's; then what 5.1
    /// leaves elsewhere: the frame's `Orientation` metadata (WebP), a PNG's eXIf chunk.
    func orientation(of frame: UnsafeMutablePointer<AVFrame>) -> (PictureOrientation, from: String)? {
        if let side = av_frame_get_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX), side.pointee.size >= 9 * 4,
           let found = StillOrientation.orientation(matrix: UnsafeRawPointer(side.pointee.data)) {
            return (found, "the frame's display matrix")
        }
        // One overload, a raw pointer: with a second for UnsafePointer<Int32>, Swift 6.0 (trixie's)
        // calls this ambiguous (the implicit pointer conversion ranks the same there).
        if let matrix = kiosk_stream_display_matrix(stream),
           let found = StillOrientation.orientation(matrix: UnsafeRawPointer(matrix)) {
            return (found, "the stream's display matrix")
        }
        if let entry = av_dict_get(frame.pointee.metadata, "Orientation", nil, 0), let value = entry.pointee.value {
            if let found = PictureOrientation(exifText: String(cString: value)) { return (found, "EXIF metadata") }
            FFmpegLog.debug("\(NetworkURL.masked(source)): EXIF Orientation '\(String(cString: value))' ignored")
        }
        return pngExif.map { ($0, "the PNG eXIf chunk") }
    }

    /// Mirrors `frame` in place when its orientation says so; returns the turn still to do.
    func uprightTurn(for frame: UnsafeMutablePointer<AVFrame>) -> Rotation {
        guard let (orientation, _) = orientation(of: frame) else { return .none }
        if orientation.isMirrored {
            let result = kiosk_frame_mirror_horizontally(frame)
            if result < 0 && !saidMirrorFailed {
                // Rare formats only (packed 4:2:2, Bayer): turned, not mirrored, rather than nothing.
                saidMirrorFailed = true
                FFmpegLog.debug("\(NetworkURL.masked(source)): \(orientation) mirror not applied: \(ffmpegErrorText(result))")
            }
        }
        return orientation.rotation
    }

    private static func orientation(matrix: UnsafeRawPointer) -> PictureOrientation? {
        let entries = (0..<9).map { matrix.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self) }
        return PictureOrientation(displayMatrix: entries)
    }

    /// The Orientation in a local PNG's eXIf chunk; nil when it has none, it is not a local
    /// file, or the chunk is malformed (one debug line).
    static func pngExifOrientation(path: String) -> PictureOrientation? {
        guard !path.contains("://") else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let found = PNGExifLocator.findExif { offset, count in
            guard count > 0 else { return [] }
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return read > 0 ? Array(bytes.prefix(read)) : []
        }
        let lookup: ExifOrientationReader.Lookup
        switch found {
        case .none: return nil
        case .malformed(let why): lookup = .malformed(why)
        case .exif(let bytes): lookup = ExifOrientationReader.orientation(inExif: bytes)
        }
        switch lookup {
        case .found(let orientation): return orientation
        case .absent: return nil
        case .malformed(let why):
            FFmpegLog.debug("\(path): EXIF orientation ignored: \(why)")
            return nil
        }
    }
}
