import CFFmpeg
import KioskCore

extension DecodedFrame {
    /// The frame's pixel layout as the direct (plane) path knows it; nil for anything a YUV
    /// plane would not show as the CPU path does.
    public var planarFormat: VideoFrameFormat? {
        // Full-range (JPEG) YUV: planes assume limited range unless told otherwise (the
        // COLOR_RANGE property, not set by kiosk yet), so such frames stay on the CPU path.
        guard frame.pointee.color_range != AVCOL_RANGE_JPEG else { return nil }
        switch AVPixelFormat(frame.pointee.format) {
        case AV_PIX_FMT_YUV420P: return .yuv420p
        case AV_PIX_FMT_NV12: return .nv12
        default: return nil
        }
    }

    /// The matrix the CPU path converts this frame with (ScalerColor: the frame's tag, else
    /// BT.709 from 720 lines or 1280 columns up): the plane is told the same.
    var matrix: YUVMatrix {
        switch ScalerColor(frame: properties).matrix {
        case SWS_CS_ITU709, SWS_CS_SMPTE240M: return .bt709
        case SWS_CS_BT2020: return .bt2020
        default: return .bt601
        }
    }

    /// The decoded planes as plain memory (no copy), for the direct path; nil when the format
    /// is not one a plane takes, or rows run bottom-up (negative linesize). Valid while the
    /// frame lives.
    public var yuvView: YUVFrameView? {
        guard let format = planarFormat else { return nil }
        let count = format == .nv12 ? 2 : 3
        var planes: [YUVFrameView.Plane] = []
        let data = frame.pointee.data, linesize = frame.pointee.linesize
        let pointers = [data.0, data.1, data.2], strides = [linesize.0, linesize.1, linesize.2]
        for index in 0..<count {
            guard let base = pointers[index], strides[index] > 0 else { return nil }
            planes.append(.init(base: UnsafeRawPointer(base), stride: Int(strides[index])))
        }
        return YUVFrameView(format: format, size: size, planes: planes, matrix: matrix)
    }
}
