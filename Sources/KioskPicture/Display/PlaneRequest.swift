/// The pure part of putting a frame on a plane: the property values of the atomic request, and
/// where each of a YUV frame's planes lives in one dumb buffer.

/// The values of a plane's SRC_*, CRTC_* and rotation properties for a `PlaneScanout`.
public struct PlanePropertyValues: Sendable, Hashable {
    /// 16.16 fixed point (uapi drm_mode.h: the source rectangle may be sub-pixel).
    public var srcX: UInt64, srcY: UInt64, srcW: UInt64, srcH: UInt64
    /// Signed for X/Y (a plane may start off screen), whole pixels; passed as 64-bit patterns.
    public var crtcX: UInt64, crtcY: UInt64, crtcW: UInt64, crtcH: UInt64
    /// DRM_MODE_ROTATE_* for the plane's "rotation" property; nil: leave the property out
    /// (the plane has none, and no rotation is wanted).
    public var rotation: UInt64?

    public init(_ scanout: PlaneScanout, planeHasRotationProperty: Bool) {
        let src = scanout.source, dst = scanout.destination
        srcX = UInt64(src.x) << 16; srcY = UInt64(src.y) << 16
        srcW = UInt64(src.width) << 16; srcH = UInt64(src.height) << 16
        crtcX = UInt64(bitPattern: Int64(dst.x)); crtcY = UInt64(bitPattern: Int64(dst.y))
        crtcW = UInt64(dst.width); crtcH = UInt64(dst.height)
        // Set even when none is wanted where the property exists: a previous client may have
        // left the plane rotated.
        rotation = planeHasRotationProperty || scanout.rotation != .none
            ? PlaneRotationSupport.drmValue(for: scanout.rotation) : nil
    }

    /// Name and value pairs in the order the request adds them.
    public var named: [(String, UInt64)] {
        var pairs: [(String, UInt64)] = [("SRC_X", srcX), ("SRC_Y", srcY), ("SRC_W", srcW), ("SRC_H", srcH),
                                         ("CRTC_X", crtcX), ("CRTC_Y", crtcY), ("CRTC_W", crtcW), ("CRTC_H", crtcH)]
        if let rotation { pairs.append(("rotation", rotation)) }
        return pairs
    }
}

/// Where the planes of a 4:2:0 picture lie in one buffer with rows of `pitch` bytes (a dumb
/// buffer created 8 bits per pixel, `height * 3 / 2` rows): luma first, then chroma below it.
/// The buffer's picture is the frame's size rounded down to even sides, so both chroma rows
/// and columns are whole; the plane's source rectangle (even-aligned too) lies within it.
public struct YUVBufferLayout: Sendable, Hashable {
    public struct Plane: Sendable, Hashable {
        public var offset: Int
        public var pitch: Int
        /// Bytes copied per row, and rows.
        public var rowBytes: Int
        public var rows: Int
    }

    public let format: VideoFrameFormat
    /// The framebuffer's size (even sides).
    public let size: PixelSize
    public let planes: [Plane]
    /// Bytes the buffer needs.
    public let byteCount: Int

    /// The framebuffer size for a frame of `frameSize`: even sides, at least 2x2.
    public static func framebufferSize(for frameSize: PixelSize) -> PixelSize {
        PixelSize(width: Swift.max(2, frameSize.width & ~1), height: Swift.max(2, frameSize.height & ~1))
    }

    /// Rows a dumb buffer of 8-bit pixels needs for `size`: luma plus half as much chroma.
    public static func dumbBufferRows(for size: PixelSize) -> Int { size.height * 3 / 2 }

    /// nil for a format that is not 4:2:0 planar, or a pitch too short or odd (chroma rows of
    /// YU12 are half a luma row).
    public init?(format: VideoFrameFormat, size: PixelSize, pitch: Int) {
        guard format == .nv12 || format == .yuv420p, size.width % 2 == 0, size.height % 2 == 0,
              size.width > 0, size.height > 0, pitch >= size.width, pitch % 2 == 0 else { return nil }
        self.format = format
        self.size = size
        let luma = Plane(offset: 0, pitch: pitch, rowBytes: size.width, rows: size.height)
        let chromaStart = pitch * size.height
        switch format {
        case .nv12:
            planes = [luma, Plane(offset: chromaStart, pitch: pitch, rowBytes: size.width, rows: size.height / 2)]
        default:
            let u = Plane(offset: chromaStart, pitch: pitch / 2, rowBytes: size.width / 2, rows: size.height / 2)
            let v = Plane(offset: chromaStart + pitch / 2 * (size.height / 2), pitch: pitch / 2,
                          rowBytes: size.width / 2, rows: size.height / 2)
            planes = [luma, u, v]
        }
        byteCount = chromaStart + pitch * (size.height / 2)
    }

    public var fourCC: FourCC { format.drmFormats[0] }

    /// Copies `frame` into `base` laid out as this layout says: one memcpy per row, no
    /// conversion. The frame must have this layout's format and at least its size.
    public func copy(_ frame: YUVFrameView, into base: UnsafeMutableRawPointer) {
        precondition(frame.format == format && frame.planes.count == planes.count, "frame of another format")
        precondition(frame.size.width >= size.width && frame.size.height >= size.height, "frame smaller than the buffer")
        for (source, destination) in zip(frame.planes, planes) {
            precondition(source.stride >= destination.rowBytes, "frame rows shorter than the buffer's")
            var from = source.base
            var to = base + destination.offset
            for _ in 0..<destination.rows {
                to.copyMemory(from: from, byteCount: destination.rowBytes)
                from += source.stride
                to += destination.pitch
            }
        }
    }
}
