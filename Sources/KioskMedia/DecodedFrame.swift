import CFFmpeg
import KioskCore

/// A decoded picture: a reference to FFmpeg's ref-counted AVFrame (no pixel copy). Owned by one
/// thread at a time: handed over through queues, never shared, hence @unchecked Sendable.
public final class DecodedFrame: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Presentation time from the start of the item (the file's start_time is 0).
    public private(set) var pts: MediaTime
    public let sampleAspect: Rational
    public let rotation: Rotation
    /// The decoder had no timestamp for it (`pts` is then the item's start).
    public let hadNoTimestamp: Bool
    /// How long the file shows it (its packet's duration: a GIF's delay), nil when it does not
    /// say. The seam holds a last frame for it (`SeamTiming`).
    public var ownDuration: MediaTime?
    /// The same picture in another device's memory, for the zero-copy path (a display that
    /// imports it shows it without touching `frame`'s pixels).
    public var prime: PrimePicture?

    init(taking frame: UnsafeMutablePointer<AVFrame>, pts: MediaTime, sampleAspect: Rational, rotation: Rotation,
         hadNoTimestamp: Bool = false) {
        self.frame = frame
        self.pts = pts
        self.hadNoTimestamp = hadNoTimestamp
        self.sampleAspect = sampleAspect
        self.rotation = rotation
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    /// The file's timestamp is untrusted: the pipeline's `FrameTimeline` may decide another.
    public func restamp(to time: MediaTime) {
        pts = time
    }

    /// What the presenter added to `pts` to bring a video that drifted from the clock back
    /// to it (`VideoAlignment`).
    public private(set) var appliedShift = MediaTime.zero

    /// Moves `pts` so that `shift` in all is added to the decided time.
    public func applyShift(_ shift: MediaTime) {
        guard shift != appliedShift else { return }
        pts = pts - appliedShift + shift
        appliedShift = shift
    }

    public var size: PixelSize { PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height)) }

    /// The bytes its picture takes in memory (the queue's byte budget counts them); 0 for a
    /// format without a layout in memory (a hardware surface).
    public var byteCount: Int {
        Int(Swift.max(0, av_image_get_buffer_size(AVPixelFormat(frame.pointee.format), frame.pointee.width,
                                                  frame.pointee.height, 1)))
    }

    public var pixelFormatName: String {
        av_get_pix_fmt_name(AVPixelFormat(frame.pointee.format)).map { String(cString: $0) } ?? "unknown"
    }
}

extension DecodedFrame {
    /// Another frame over the same pixels (av_frame_clone: a new reference, no copy), at the
    /// start of the item; nil when out of memory. For a still handed out again after a seek.
    public func newReference() -> DecodedFrame? {
        guard let copy = av_frame_clone(frame) else { return nil }
        return DecodedFrame(taking: copy, pts: .zero, sampleAspect: sampleAspect, rotation: rotation)
    }
}
