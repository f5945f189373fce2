import CHeif
import Foundation
import KioskCore

// Thin typed wrappers of libheif's C API: each class owns one libheif object and frees it in
// deinit, each failure is a `MediaError` naming the file with libheif's own reason. The calls go
// through CHeif's table: libheif is opened the first time a HEIF still is read.

/// libheif, opened on first use (`kiosk_heif_load`, once per process).
enum LibHeif {
    /// Its calls; a `MediaError` naming `source` when this machine has no usable libheif.
    static func api(for source: String) throws -> UnsafePointer<kiosk_heif_api> {
        var error: UnsafePointer<CChar>?
        guard let api = kiosk_heif_load(&error) else {
            let reason = error.map { String(cString: $0) } ?? "cannot open libheif"
            throw MediaError(source: source, reason: "HEIF and AVIF stills need libheif: \(reason) (Debian: apt install libheif1)")
        }
        return api
    }
}

/// libheif's error as a Swift error: the message is copied at once (it lives in the context).
struct HeifFailure: Error {
    let reason: String

    /// nil when `error` says success.
    init?(_ error: heif_error) {
        guard error.code != heif_error_Ok else { return nil }
        let text = error.message.map { String(cString: $0) } ?? ""
        // Some of libheif's messages end in a newline: the error stays one line.
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        reason = lines.isEmpty ? "libheif error \(error.code.rawValue)" : lines.joined(separator: "; ")
    }
}

/// A HEIF file opened with libheif (its boxes read, nothing decoded yet).
final class HeifContext {
    let path: String
    let heif: UnsafePointer<kiosk_heif_api>
    private let context: OpaquePointer

    init(path: String, heif: UnsafePointer<kiosk_heif_api>) throws {
        self.path = path
        self.heif = heif
        guard let context = heif.pointee.context_alloc() else { throw MediaError(source: path, reason: "out of memory opening libheif") }
        self.context = context
        if let failure = HeifFailure(heif.pointee.context_read_from_file(context, path, nil)) {
            throw MediaError(source: path, reason: "libheif cannot read it: \(failure.reason)")
        }
    }

    deinit {
        heif.pointee.context_free(context)
    }

    /// The picture a viewer shows for the file (a phone's photo; others are thumbnails, depth maps).
    func primaryImage() throws -> HeifImageHandle {
        var handle: OpaquePointer?
        if let failure = HeifFailure(heif.pointee.context_get_primary_image_handle(context, &handle)) {
            throw MediaError(source: path, reason: "libheif finds no picture in it: \(failure.reason)")
        }
        // The handle refers to the context: it keeps it alive.
        return HeifImageHandle(handle!, context: self)
    }
}

/// One image of a HEIF file, not decoded: its size and layout come from the file's boxes.
final class HeifImageHandle {
    private let handle: OpaquePointer
    private let context: HeifContext

    fileprivate init(_ handle: OpaquePointer, context: HeifContext) {
        self.handle = handle
        self.context = context
    }

    deinit {
        context.heif.pointee.image_handle_release(handle)
    }

    /// The size as shown: libheif reports it after the file's rotation and crop (irot, clap).
    var size: PixelSize {
        PixelSize(width: Int(context.heif.pointee.image_handle_get_width(handle)), height: Int(context.heif.pointee.image_handle_get_height(handle)))
    }

    var hasAlpha: Bool { context.heif.pointee.image_handle_has_alpha_channel(handle) != 0 }

    /// Decodes to 8-bit YCbCr 4:2:0, whatever the file holds (4:4:4, monochrome, 10-bit HDR
    /// are converted by libheif): the one layout the scaler and the plane path both take, at
    /// 12 bits a pixel, half of RGB's 24 within the same memory ceiling.
    func decodeYUV420() throws -> HeifImage {
        let heif = context.heif
        guard let options = heif.pointee.decoding_options_alloc() else {
            throw MediaError(source: context.path, reason: "out of memory decoding with libheif")
        }
        defer { heif.pointee.decoding_options_free(options) }
        // HEIF keeps a photo's orientation in its irot/imir/clap boxes (not EXIF, which the
        // spec says to ignore when irot is there): libheif applies them, so the frame comes
        // out upright and nothing else turns it again.
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        if let failure = HeifFailure(heif.pointee.decode_image(handle, &image, heif_colorspace_YCbCr, heif_chroma_420, options)) {
            throw MediaError(source: context.path, reason: "libheif cannot decode it: \(failure.reason)")
        }
        return HeifImage(image!, heif: heif)
    }
}

/// A decoded HEIF picture: libheif's planes, released when its owner is done.
final class HeifImage {
    /// nil once handed to an AVFrame (`takeImage`), which releases it then.
    private var image: OpaquePointer?
    private let heif: UnsafePointer<kiosk_heif_api>

    fileprivate init(_ image: OpaquePointer, heif: UnsafePointer<kiosk_heif_api>) {
        self.image = image
        self.heif = heif
    }

    deinit {
        if let image { heif.pointee.image_release(image) }
    }

    /// One plane's pixels and the bytes from one row to the next; nil when the image has no
    /// such plane or it is not 8-bit.
    func plane(_ channel: heif_channel) -> (base: UnsafePointer<UInt8>, stride: Int)? {
        guard let image, heif.pointee.image_get_bits_per_pixel_range(image, channel) == 8 else { return nil }
        var stride: Int32 = 0
        guard let base = heif.pointee.image_get_plane_readonly(image, channel, &stride), stride > 0 else { return nil }
        return (base, Int(stride))
    }

    var isYUV420: Bool {
        guard let image else { return false }
        return heif.pointee.image_get_colorspace(image) == heif_colorspace_YCbCr && heif.pointee.image_get_chroma_format(image) == heif_chroma_420
    }

    /// How the planes encode colour: the decoded image's nclx (the file's colr box, else the
    /// codec's), nil when it says nothing.
    var colour: (matrix: Int, primaries: Int, transfer: Int, fullRange: Bool)? {
        guard let image else { return nil }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard HeifFailure(heif.pointee.image_get_nclx_color_profile(image, &nclx)) == nil, let nclx else { return nil }
        defer { heif.pointee.nclx_color_profile_free(nclx) }
        return (Int(nclx.pointee.matrix_coefficients.rawValue), Int(nclx.pointee.color_primaries.rawValue),
                Int(nclx.pointee.transfer_characteristics.rawValue), nclx.pointee.full_range_flag != 0)
    }

    /// Gives up ownership: the caller releases the returned image (kiosk_heif_image_release).
    func takeImage() -> OpaquePointer? {
        defer { image = nil }
        return image
    }
}

/// What a file's first bytes say, for routing a still to libheif when its name does not.
enum HeifSniff {
    /// Whether `bytes` (a file's start) are a HEIF still's (`StillSignature.isHeif`). Read there
    /// rather than asked of `heif_check_filetype`: trixie's libheif 1.23 answers "yes,
    /// unsupported" for any ISO BMFF file, so every .mp4 would have gone to libheif
    /// (deploy/trixie found it).
    static func isHeif(_ bytes: [UInt8]) -> Bool { StillSignature.isHeif(bytes) }

    /// "image/heic", "image/avif"...; "" when the bytes are not HEIF.
    static func mimeType(_ bytes: [UInt8], heif: UnsafePointer<kiosk_heif_api>) -> String {
        heif.pointee.get_file_mime_type(bytes, Int32(bytes.count)).map { String(cString: $0) } ?? ""
    }

    /// Whether this libheif can decode AV1 (AVIF): Debian's builds it with dav1d or aom.
    static func decodesAV1(heif: UnsafePointer<kiosk_heif_api>) -> Bool {
        heif.pointee.have_decoder_for_format(heif_compression_AV1) != 0
    }
}
