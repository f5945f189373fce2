import CFFmpeg
import KioskCore

/// Converts and scales decoded frames into XRGB8888 buffers with a gravity layout: swscale
/// writes straight into the destination rectangle of the caller's buffer (no full-size copy),
/// the bars around it are cleared to black. Rotated layouts scale into a small scratch buffer
/// of the destination's size and turn it on the way in.
public final class Scaler {
    private var context: OpaquePointer?
    private var scratch: UnsafeMutableRawPointer?
    private var scratchCapacity = 0
    /// swscale's algorithm: bilinear is sharp enough for signage and several times cheaper
    /// than bicubic at 1080p.
    private let flags: Int32

    public init(quality: Quality = .bilinear) {
        flags = quality.swsFlags
    }

    public enum Quality: String, Sendable, CaseIterable {
        case fastBilinear = "fast", bilinear, bicubic
        var swsFlags: Int32 {
            switch self {
            case .fastBilinear: return SWS_FAST_BILINEAR
            case .bilinear: return SWS_BILINEAR
            case .bicubic: return SWS_BICUBIC
            }
        }
    }

    deinit {
        sws_freeContext(context)
        scratch?.deallocate()
    }

    /// The layout of `frame` on a target of `size` with `gravity`, honouring the frame's SAR,
    /// its rotation tag and an extra display rotation.
    public static func layout(for frame: DecodedFrame, on size: PixelSize, gravity: VideoGravity,
                              displayRotation: Rotation = .none) -> GravityLayout {
        GravityLayout(source: frame.size, sampleAspect: frame.sampleAspect, rotation: frame.rotation + displayRotation,
                      target: size, gravity: gravity)
    }

    /// Draws `frame` into `buffer` as `layout` says; everything outside the picture turns black.
    public func draw(_ frame: DecodedFrame, layout: GravityLayout, into buffer: PixelBuffer) throws {
        precondition(layout.target == buffer.size, "layout made for another buffer size")
        guard let cropped = av_frame_clone(frame.frame) else { throw ScalerError.outOfMemory }
        var croppedPointer: UnsafeMutablePointer<AVFrame>? = cropped
        defer { av_frame_free(&croppedPointer) }
        let crop = layout.sourceCrop
        cropped.pointee.crop_left = Int(crop.x)
        cropped.pointee.crop_top = Int(crop.y)
        cropped.pointee.crop_right = Int(frame.size.width - crop.maxX)
        cropped.pointee.crop_bottom = Int(frame.size.height - crop.maxY)
        // UNALIGNED: exact crop offsets; chroma of subsampled formats rounds to its grid.
        let cropResult = av_frame_apply_cropping(cropped, Int32(AV_FRAME_CROP_UNALIGNED))
        guard cropResult >= 0 else { throw ScalerError.ffmpeg("cropping failed: \(ffmpegErrorText(cropResult))") }

        let destination = layout.destination
        buffer.clear(outside: destination)
        let scaledSize = layout.rotation.swapsAxes ? destination.size.transposed : destination.size
        let context = try prepare(for: frame, layout: layout)
        if layout.rotation == .none {
            let origin = buffer.base + destination.y * buffer.stride + destination.x * 4
            try scale(cropped, with: context, into: origin, stride: buffer.stride, height: scaledSize.height)
        } else {
            let stride = scaledSize.width * 4
            let scratch = scratchBuffer(bytes: stride * scaledSize.height)
            try scale(cropped, with: context, into: scratch, stride: stride, height: scaledSize.height)
            Scaler.rotate(scratch, size: scaledSize, stride: stride, by: layout.rotation, into: buffer, at: destination)
        }
    }

    /// Builds (or keeps) swscale's context for frames like `frame` drawn with `layout`. Drawing
    /// does it anyway; calling it ahead (an item prepared for a seam) takes the set-up, a
    /// millisecond or more, off the first frame's path.
    @discardableResult
    public func prepare(for frame: DecodedFrame, layout: GravityLayout) throws -> OpaquePointer {
        // swscale writes the picture upright; a rotated layout is scaled to the pre-rotation size.
        let destination = layout.destination
        let scaledSize = layout.rotation.swapsAxes ? destination.size.transposed : destination.size
        let crop = layout.sourceCrop
        context = sws_getCachedContext(context, Int32(crop.width), Int32(crop.height), AVPixelFormat(frame.frame.pointee.format),
                                       Int32(scaledSize.width), Int32(scaledSize.height), AV_PIX_FMT_BGR0,
                                       flags, nil, nil, nil)
        guard let context else {
            throw ScalerError.ffmpeg("swscale cannot convert \(frame.pixelFormatName) \(crop.size) to \(scaledSize)")
        }
        return context
    }

    private func scale(_ frame: UnsafeMutablePointer<AVFrame>, with context: OpaquePointer,
                       into origin: UnsafeMutableRawPointer, stride: Int, height: Int) throws {
        var planes: [UnsafeMutablePointer<UInt8>?] = [origin.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        let sourcePlanes = withUnsafePointer(to: &frame.pointee.data) {
            $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { $0 }
        }
        let sourceStrides = withUnsafePointer(to: &frame.pointee.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0 }
        }
        let rows = sws_scale(context, sourcePlanes, sourceStrides, 0, frame.pointee.height, &planes, &strides)
        guard rows == Int32(height) else { throw ScalerError.ffmpeg("swscale wrote \(rows) of \(height) rows") }
    }

    private func scratchBuffer(bytes: Int) -> UnsafeMutableRawPointer {
        if bytes > scratchCapacity {
            scratch?.deallocate()
            scratch = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            scratchCapacity = bytes
        }
        return scratch!
    }

    /// Turns an upright XRGB picture clockwise by `rotation` into `rect` of `buffer`.
    static func rotate(_ source: UnsafeMutableRawPointer, size: PixelSize, stride: Int, by rotation: Rotation,
                       into buffer: PixelBuffer, at rect: PixelRect) {
        let w = size.width, h = size.height
        for y in 0..<h {
            let row = (source + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w {
                let (dx, dy): (Int, Int)
                switch rotation {
                case .none: (dx, dy) = (x, y)
                case .clockwise90: (dx, dy) = (h - 1 - y, x)
                case .clockwise180: (dx, dy) = (w - 1 - x, h - 1 - y)
                case .clockwise270: (dx, dy) = (y, w - 1 - x)
                }
                buffer.base.storeBytes(of: row[x], toByteOffset: (rect.y + dy) * buffer.stride + (rect.x + dx) * 4, as: UInt32.self)
            }
        }
    }
}

public enum ScalerError: Error, CustomStringConvertible {
    case outOfMemory
    case ffmpeg(String)
    public var description: String {
        switch self {
        case .outOfMemory: return "out of memory"
        case .ffmpeg(let text): return text
        }
    }
}
