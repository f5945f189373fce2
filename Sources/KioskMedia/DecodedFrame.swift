import CFFmpeg
import KioskCore

/// A decoded picture: a reference to FFmpeg's ref-counted AVFrame (no pixel copy). Owned by one
/// thread at a time: handed over through queues, never shared, hence @unchecked Sendable.
public final class DecodedFrame: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Presentation time from the start of the item (the file's start_time is 0).
    public let pts: MediaTime
    public let sampleAspect: Rational
    public let rotation: Rotation

    init(taking frame: UnsafeMutablePointer<AVFrame>, pts: MediaTime, sampleAspect: Rational, rotation: Rotation) {
        self.frame = frame
        self.pts = pts
        self.sampleAspect = sampleAspect
        self.rotation = rotation
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    public var size: PixelSize { PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height)) }

    public var pixelFormatName: String {
        av_get_pix_fmt_name(AVPixelFormat(frame.pointee.format)).map { String(cString: $0) } ?? "unknown"
    }
}
