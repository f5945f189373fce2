import CFFmpeg
import KioskCore

/// The YUV-to-RGB matrix and range swscale should convert a frame with. swscale assumes BT.601
/// limited range unless told otherwise; HD video is normally BT.709, so untouched, tagged HD
/// colours come out visibly off (a saturated yellow by ~15 levels).
struct ScalerColor: Equatable {
    /// One of swscale's SWS_CS_* values, for sws_getCoefficients.
    let matrix: Int32
    /// Full (0-255, "JPEG") rather than limited (16-235) range luma.
    let fullRange: Bool

    /// The frame's own tags when it has them; untagged frames follow the usual convention of
    /// players (mpv, most TVs): BT.709 from 720 lines or 1280 columns up, BT.601 below.
    init(frame: UnsafePointer<AVFrame>) {
        matrix = Self.taggedMatrix(of: frame) ?? (Self.untaggedIsBT709(frame) ? SWS_CS_ITU709 : SWS_CS_ITU601)
        let format = AVPixelFormat(frame.pointee.format)
        // The deprecated yuvj formats are full range whatever the tag says.
        fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
            || [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P,
                AV_PIX_FMT_YUVJ411P].contains(format)
    }

    /// The convention for an untagged frame, by the size it was decoded at.
    static func untaggedIsBT709(_ frame: UnsafePointer<AVFrame>) -> Bool {
        frame.pointee.height >= 720 || frame.pointee.width >= 1280
    }

    /// The swscale matrix `frame`'s colourspace tag names; nil when it names none kiosk reads.
    private static func taggedMatrix(of frame: UnsafePointer<AVFrame>) -> Int32? {
        switch frame.pointee.colorspace {
        case AVCOL_SPC_BT709: SWS_CS_ITU709
        case AVCOL_SPC_FCC: SWS_CS_FCC
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: SWS_CS_ITU601
        case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
        default: nil
        }
    }

    /// Whether `init(frame:)` guesses `frame`'s matrix rather than reading its tag.
    static func isUntagged(_ frame: UnsafePointer<AVFrame>) -> Bool { taggedMatrix(of: frame) == nil }

    /// Sets the source matrix and range of a YUV -> RGB `context`. Setting them makes swscale
    /// rebuild its tables, so this reads back what the context has and only sets what differs
    /// (a cached context keeps them; a rebuilt one starts from swscale's defaults again).
    func apply(to context: OpaquePointer) {
        let coefficients = sws_getCoefficients(matrix)!
        var current: UnsafeMutablePointer<Int32>?
        var currentRange: Int32 = 0
        var table: UnsafeMutablePointer<Int32>?
        var destinationRange: Int32 = 0
        var brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        if sws_getColorspaceDetails(context, &current, &currentRange, &table, &destinationRange,
                                    &brightness, &contrast, &saturation) >= 0,
           let current, (0..<4).allSatisfy({ current[$0] == coefficients[$0] }), (currentRange != 0) == fullRange {
            return
        }
        // RGB output is always full range; the destination table only matters for YUV output.
        _ = sws_setColorspaceDetails(context, coefficients, fullRange ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                     0, 1 << 16, 1 << 16)
    }
}

/// A planar picture allocated with av_image_alloc (all planes in one block): the middle of the
/// Scaler's two steps.
final class PlanarPicture {
    let size: PixelSize
    private(set) var planes: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil]
    private(set) var strides: [Int32] = [0, 0, 0, 0]

    init?(size: PixelSize, format: AVPixelFormat) {
        self.size = size
        if av_image_alloc(&planes, &strides, Int32(size.width), Int32(size.height), format, 64) < 0 { return nil }
    }

    deinit {
        av_freep(&planes)
    }
}
