import CFFmpeg
import CKioskShim
import KioskCore

/// A decoded picture: a reference to FFmpeg's ref-counted AVFrame (no pixel copy). Owned by one
/// thread at a time: handed over through queues, never shared, hence @unchecked Sendable.
public final class DecodedFrame: @unchecked Sendable {
    /// The frame as decoded, or, while it is only on its device (`copyDown`), the device's.
    private var stored: UnsafeMutablePointer<AVFrame>
    /// Set while the picture is only in its device's memory: a frame handed on as DRM PRIME is
    /// not copied down while the zero-copy path shows such frames (`PrimeHandOn.copyDown`); how
    /// to copy it when something reads its pixels after all (the OSD, a screenshot, a plane that
    /// refused it). Its owner's thread does so, once.
    private var copyDown: ((UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>?)?
    /// The pixels were read after all, so the picture was copied down late (stats, tests).
    public private(set) var wasCopiedLate = false
    /// What a frame left on its device weighs in the queue's byte budget (its copy's bytes),
    /// fixed when it is made.
    private var weight: Int?

    /// The frame in memory, for whatever reads its pixels: a picture only on its device is
    /// copied down first (the copy failing: a black picture of its size, said by the caller's
    /// output being black rather than by a crash).
    var frame: UnsafeMutablePointer<AVFrame> {
        guard let copyDown else { return stored }
        self.copyDown = nil
        wasCopiedLate = true
        if let copied = copyDown(stored) ?? Self.black(like: stored) ?? Self.black(like: stored, format: AV_PIX_FMT_NV12) {
            var device: UnsafeMutablePointer<AVFrame>? = stored
            av_frame_free(&device)
            stored = copied
        }
        return stored
    }

    /// Whether the pixels are in memory (false while the picture is only on its device).
    public var isInMemory: Bool { copyDown == nil }
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
        stored = frame
        self.pts = pts
        self.hadNoTimestamp = hadNoTimestamp
        self.sampleAspect = sampleAspect
        self.rotation = rotation
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = stored
        av_frame_free(&pointer)
    }

    /// `frame` (a device's, handed on as DRM PRIME) left on its device until its pixels are
    /// read: `copyDown` then copies it to memory.
    init(onDevice frame: UnsafeMutablePointer<AVFrame>, weight: Int,
         copyDown: @escaping (UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>?,
         pts: MediaTime, sampleAspect: Rational, rotation: Rotation, hadNoTimestamp: Bool = false) {
        stored = frame
        self.weight = weight
        self.copyDown = copyDown
        self.pts = pts
        self.hadNoTimestamp = hadNoTimestamp
        self.sampleAspect = sampleAspect
        self.rotation = rotation
    }

    /// For `--simulate-prime-decoder`: the frame's pixels stand for a device's picture left
    /// there, "copied down" (a new reference to them) when something reads them.
    public func leaveOnSimulatedDevice() {
        guard copyDown == nil, !wasCopiedLate else { return }
        weight = byteCount
        copyDown = { av_frame_clone($0) }
    }

    /// A black picture in the format a device hands down (its frames context's, else NV12),
    /// the size and properties of `frame`; nil out of memory.
    static func black(like frame: UnsafeMutablePointer<AVFrame>, format: AVPixelFormat? = nil) -> UnsafeMutablePointer<AVFrame>? {
        guard let copy = av_frame_alloc() else { return nil }
        copy.pointee.format = (format ?? softwareFormat(of: frame)).rawValue
        copy.pointee.width = frame.pointee.width
        copy.pointee.height = frame.pointee.height
        guard av_frame_get_buffer(copy, 0) >= 0, av_frame_copy_props(copy, frame) >= 0, kiosk_frame_fill_black(copy) >= 0 else {
            var failed: UnsafeMutablePointer<AVFrame>? = copy
            av_frame_free(&failed)
            return nil
        }
        return copy
    }

    /// The format `frame`'s pixels have in memory: its own, or a device frame's software one.
    static func softwareFormat(of frame: UnsafeMutablePointer<AVFrame>) -> AVPixelFormat {
        if let frames = frame.pointee.hw_frames_ctx?.pointee.data {
            return frames.withMemoryRebound(to: AVHWFramesContext.self, capacity: 1) { $0.pointee.sw_format }
        }
        let format = AVPixelFormat(frame.pointee.format)
        let hardware = av_pix_fmt_desc_get(format).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) != 0 } ?? true
        return hardware ? AV_PIX_FMT_NV12 : format
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

    public var size: PixelSize { PixelSize(width: Int(stored.pointee.width), height: Int(stored.pointee.height)) }

    /// The bytes its picture takes in memory (the queue's byte budget counts them), or would
    /// take copied down while it is only on its device (the device's pool holds it meanwhile).
    public var byteCount: Int {
        weight ?? Int(Swift.max(0, av_image_get_buffer_size(Self.softwareFormat(of: stored), stored.pointee.width,
                                                            stored.pointee.height, 1)))
    }

    /// Its pixel format in memory ("yuv420p", "nv12"; a picture on its device: the one it is
    /// copied down in).
    public var pixelFormatName: String {
        av_get_pix_fmt_name(Self.softwareFormat(of: stored)).map { String(cString: $0) } ?? "unknown"
    }

    /// The frame's properties (size, colour tags, timestamps), without copying a picture on its
    /// device down.
    var properties: UnsafeMutablePointer<AVFrame> { stored }
}

extension DecodedFrame {
    /// Another frame over the same pixels (av_frame_clone: a new reference, no copy), at the
    /// start of the item; nil when out of memory. For a still handed out again after a seek.
    public func newReference() -> DecodedFrame? {
        guard let copy = av_frame_clone(frame) else { return nil }   // in memory first
        return DecodedFrame(taking: copy, pts: .zero, sampleAspect: sampleAspect, rotation: rotation)
    }
}
