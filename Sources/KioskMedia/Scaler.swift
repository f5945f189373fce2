import CFFmpeg
import KioskCore

/// Converts and scales decoded frames into XRGB8888 buffers with a gravity layout: swscale
/// writes straight into the destination rectangle of the caller's buffer (no full-size copy),
/// the bars around it are cleared to black. Rotated layouts scale into a small scratch buffer
/// of the destination's size and turn it on the way in.
public final class Scaler {
    /// One sws_scale call that scales and converts to BGR0: works for every source and size.
    private var context: OpaquePointer?
    /// The faster way for the usual sources (see `scaleInTwoSteps`): scale to YUV 4:2:2 at the
    /// final size, then convert that unscaled to BGR0.
    private var toMiddle: OpaquePointer?
    private var toRGB: OpaquePointer?
    private var middle: PlanarPicture?
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
        sws_freeContext(toMiddle)
        sws_freeContext(toRGB)
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
        let plan = try plan(for: frame, layout: layout)
        if layout.rotation == .none && scaledSize.width % Scaler.pixelGroup == 0 {
            let origin = buffer.base + destination.y * buffer.stride + destination.x * 4
            try run(plan, on: cropped, into: origin, stride: buffer.stride, size: scaledSize)
        } else {
            // swscale's SIMD code writes whole pixel groups (and its unscaled converters row
            // pairs): at other widths it wrote past the row, into the bar or past the end of an
            // exact-size buffer. So such pictures, and rotated ones, are scaled into a scratch
            // buffer with padded rows and a spare row, then copied or turned into place.
            let stride = (scaledSize.width + Scaler.pixelGroup - 1) / Scaler.pixelGroup * Scaler.pixelGroup * 4
            let scratch = scratchBuffer(bytes: stride * (scaledSize.height + 1))
            try run(plan, on: cropped, into: scratch, stride: stride, size: scaledSize)
            if layout.rotation == .none {
                for row in 0..<scaledSize.height {
                    (buffer.base + (destination.y + row) * buffer.stride + destination.x * 4)
                        .copyMemory(from: scratch + row * stride, byteCount: scaledSize.width * 4)
                }
            } else {
                Scaler.rotate(scratch, size: scaledSize, stride: stride, by: layout.rotation, into: buffer, at: destination)
            }
        }
    }

    /// The pixel group swscale's SIMD converters write at once (measured: a 364-pixel row got
    /// 4 more pixels, a 360-pixel one 8 more on the two-step path).
    static let pixelGroup = 16

    /// Builds (or keeps) swscale's contexts for frames like `frame` drawn with `layout`. Drawing
    /// does it anyway; calling it ahead (an item prepared for a seam) takes the set-up, a
    /// millisecond or more, off the first frame's path.
    public func prepare(for frame: DecodedFrame, layout: GravityLayout) throws {
        _ = try plan(for: frame, layout: layout)
    }

    private enum Plan {
        case oneStep(OpaquePointer)
        case twoSteps(toMiddle: OpaquePointer, toRGB: OpaquePointer, middle: PlanarPicture)
    }

    /// Sources the two steps are used for: the 8-bit YUV that cameras and encoders make. Others
    /// (RGB stills, 4:4:4, 10-bit, the yuvj formats) keep the one-step path, which loses nothing.
    private static let twoStepSources: Set<Int32> = [AV_PIX_FMT_YUV420P.rawValue, AV_PIX_FMT_NV12.rawValue,
                                                     AV_PIX_FMT_YUV422P.rawValue].reduce(into: []) { $0.insert(Int32($1)) }

    /// Whether frames of `format` take the two-step SIMD path (at sizes it was measured for).
    static func isTwoStepSource(_ format: AVPixelFormat) -> Bool { twoStepSources.contains(Int32(format.rawValue)) }

    private func plan(for frame: DecodedFrame, layout: GravityLayout) throws -> Plan {
        // swscale writes the picture upright; a rotated layout is scaled to the pre-rotation size.
        let destination = layout.destination
        let scaledSize = layout.rotation.swapsAxes ? destination.size.transposed : destination.size
        let crop = layout.sourceCrop
        // Read without copying a frame left on its device down (`prepare` for the next item):
        // the format it will have in memory.
        let format = frame.isInMemory ? AVPixelFormat(frame.properties.pointee.format) : DecodedFrame.softwareFormat(of: frame.properties)
        let color = ScalerColor(frame: frame.properties)
        // The two steps only where they were measured (same picture, 48 dB PSNR): widths in
        // whole pixel groups and even heights; other sizes keep the one-call path.
        if scaledSize.width % Scaler.pixelGroup == 0, scaledSize.height % 2 == 0, Scaler.twoStepSources.contains(format.rawValue) {
            toMiddle = sws_getCachedContext(toMiddle, Int32(crop.width), Int32(crop.height), format,
                                            Int32(scaledSize.width), Int32(scaledSize.height), AV_PIX_FMT_YUV422P,
                                            flags, nil, nil, nil)
            toRGB = sws_getCachedContext(toRGB, Int32(scaledSize.width), Int32(scaledSize.height), AV_PIX_FMT_YUV422P,
                                         Int32(scaledSize.width), Int32(scaledSize.height), AV_PIX_FMT_BGR0,
                                         flags, nil, nil, nil)
            guard let toMiddle, let toRGB else {
                throw ScalerError.ffmpeg("swscale cannot scale \(frame.pixelFormatName) \(crop.size) to yuv422p \(scaledSize)")
            }
            // The first step keeps the YUV values as they are (same range, no matrix); the
            // second one is where the frame's matrix and range count.
            color.apply(to: toRGB)
            return .twoSteps(toMiddle: toMiddle, toRGB: toRGB, middle: try middlePicture(size: scaledSize))
        }
        context = sws_getCachedContext(context, Int32(crop.width), Int32(crop.height), format,
                                       Int32(scaledSize.width), Int32(scaledSize.height), AV_PIX_FMT_BGR0,
                                       flags, nil, nil, nil)
        guard let context else {
            throw ScalerError.ffmpeg("swscale cannot convert \(frame.pixelFormatName) \(crop.size) to \(scaledSize)")
        }
        color.apply(to: context)
        return .oneStep(context)
    }

    private func run(_ plan: Plan, on frame: UnsafeMutablePointer<AVFrame>, into origin: UnsafeMutableRawPointer,
                     stride: Int, size: PixelSize) throws {
        let sourcePlanes = withUnsafePointer(to: &frame.pointee.data) {
            $0.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { $0 }
        }
        let sourceStrides = withUnsafePointer(to: &frame.pointee.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { $0 }
        }
        var planes: [UnsafeMutablePointer<UInt8>?] = [origin.assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var strides: [Int32] = [Int32(stride), 0, 0, 0]
        switch plan {
        case .oneStep(let context):
            let rows = sws_scale(context, sourcePlanes, sourceStrides, 0, frame.pointee.height, &planes, &strides)
            try Scaler.check(rows: rows, of: size.height)
        case .twoSteps(let toMiddle, let toRGB, let middle):
            // swscale's one-call scale-and-convert to packed RGB runs scalar C code; both steps
            // here run SIMD code, for a third fewer swscale instructions and the same picture
            // (48 dB PSNR to the one-call result: 4:2:2 keeps the vertical chroma resolution
            // the one-call path has, 4:2:0 would lose it).
            var middlePlanes = middle.planes
            var middleStrides = middle.strides
            let scaled = sws_scale(toMiddle, sourcePlanes, sourceStrides, 0, frame.pointee.height, &middlePlanes, &middleStrides)
            try Scaler.check(rows: scaled, of: size.height)
            var middleIn: [UnsafePointer<UInt8>?] = middle.planes.map { $0.map { UnsafePointer($0) } }
            let rows = sws_scale(toRGB, &middleIn, &middleStrides, 0, Int32(size.height), &planes, &strides)
            try Scaler.check(rows: rows, of: size.height)
        }
    }

    private static func check(rows: Int32, of height: Int) throws {
        guard rows == Int32(height) else { throw ScalerError.ffmpeg("swscale wrote \(rows) of \(height) rows") }
    }

    /// The YUV 4:2:2 picture between the two steps, kept while the size holds.
    private func middlePicture(size: PixelSize) throws -> PlanarPicture {
        if let middle, middle.size == size { return middle }
        guard let picture = PlanarPicture(size: size, format: AV_PIX_FMT_YUV422P) else { throw ScalerError.outOfMemory }
        middle = picture
        return picture
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
