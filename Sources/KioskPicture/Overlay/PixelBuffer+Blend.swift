/// Alpha blending into an XRGB8888 buffer, in the viewer's (upright) coordinates: a buffer
/// the engine fills turned by the display rotation (VideoOutput.softwareRotation) gets the
/// overlay turned the same way, so it comes out upright on the physical screen.
extension PixelBuffer {
    /// Blends `color` (0x00RRGGBB) over `rect` at `opacity` (255 opaque).
    public func blendFill(_ rect: PixelRect, color: UInt32, opacity: UInt8 = 255, rotation: Rotation = .none) {
        guard let run = ViewerRuns(buffer: self, rect: rect, rotation: rotation) else { return }
        // The scrims behind text are the overlay's largest areas: black at half opacity is
        // each channel halved, one shift and mask a pixel (the general blend rounds the same).
        let halving = color == 0 && opacity == 128 && format == .xrgb8888
        let keepsAlpha = format == .argb8888
        for y in run.rows {
            var pointer = run.start(ofRow: y)
            for _ in run.columns {
                if halving {
                    pointer.pointee = (pointer.pointee >> 1) & 0x7F7F7F
                } else {
                    Self.blend(pointer, color: color, alpha: Int(opacity), keepsAlpha: keepsAlpha)
                }
                pointer += run.step
            }
        }
    }

    /// Blends `color` through `mask`, its top-left corner at `origin` (parts off the screen
    /// are cut), the mask's coverage scaled by `opacity`.
    public func blend(_ mask: AlphaMask, at origin: (x: Int, y: Int), color: UInt32, opacity: UInt8 = 255,
                      rotation: Rotation = .none) {
        let rect = PixelRect(x: origin.x, y: origin.y, width: mask.width, height: mask.height)
        guard let run = ViewerRuns(buffer: self, rect: rect, rotation: rotation) else { return }
        let keepsAlpha = format == .argb8888
        // Most of a text mask is empty or fully covered: those pixels skip the arithmetic (a
        // ticker blends its whole line at every refresh).
        let opaque = opacity == 255
        mask.pixels.withUnsafeBufferPointer { coverage in
            for y in run.rows {
                var pointer = run.start(ofRow: y)
                var index = (y - rect.y) * mask.width + (run.columns.lowerBound - rect.x)
                for _ in run.columns {
                    let covered = Int(coverage[index])
                    let alpha = opaque || covered == 0 ? covered : covered * Int(opacity) / 255
                    if alpha > 0 { Self.blend(pointer, color: color, alpha: alpha, keepsAlpha: keepsAlpha) }
                    pointer += run.step
                    index += 1
                }
            }
        }
    }

    /// Blends a line of text: its mask in `color`, then its colour glyphs (emoji) with their own
    /// colours, both through `opacity`; the mask's top-left corner at `origin`.
    public func blend(_ text: RenderedText, at origin: (x: Int, y: Int), color: UInt32, opacity: UInt8 = 255,
                      rotation: Rotation = .none) {
        blend(text.mask, at: origin, color: color, opacity: opacity, rotation: rotation)
        for glyph in text.colorGlyphs {
            blend(glyph.image, at: (origin.x + glyph.x, origin.y + glyph.y), opacity: opacity, rotation: rotation)
        }
    }

    /// The pixel the viewer sees at (x, y), as stored in this buffer.
    public func viewerPixel(x: Int, y: Int, rotation: Rotation) -> UInt32 {
        let viewer = OverlayLayout.viewerSize(buffer: size, rotation: rotation)
        let (bx, by) = Self.bufferPoint(x: x, y: y, viewer: viewer, rotation: rotation)
        return pixel(x: bx, y: by)
    }

    /// Where the upright picture's pixel (x, y) lands once turned clockwise by `rotation`
    /// (the pixel version of `Rotation.map`).
    static func bufferPoint(x: Int, y: Int, viewer: PixelSize, rotation: Rotation) -> (Int, Int) {
        switch rotation {
        case .none: return (x, y)
        case .clockwise90: return (viewer.height - 1 - y, x)
        case .clockwise180: return (viewer.width - 1 - x, viewer.height - 1 - y)
        case .clockwise270: return (y, viewer.width - 1 - x)
        }
    }

    /// `color` at `alpha` over the pixel. The colour sum is the same for a premultiplied ARGB
    /// pixel (its colour already carries its alpha); `keepsAlpha` (an ARGB buffer) also adds
    /// the coverage: alpha over alpha.
    static func blend(_ pointer: UnsafeMutablePointer<UInt32>, color: UInt32, alpha: Int, keepsAlpha: Bool = false) {
        if alpha >= 255 { pointer.pointee = color & 0x00FF_FFFF | (keepsAlpha ? 0xFF00_0000 : 0); return }
        let dst = pointer.pointee
        let keep = 255 - alpha
        let r = (Int((color >> 16) & 0xFF) * alpha + Int((dst >> 16) & 0xFF) * keep + 127) / 255
        let g = (Int((color >> 8) & 0xFF) * alpha + Int((dst >> 8) & 0xFF) * keep + 127) / 255
        let b = (Int(color & 0xFF) * alpha + Int(dst & 0xFF) * keep + 127) / 255
        let a = keepsAlpha ? (alpha * 255 + Int(dst >> 24) * keep + 127) / 255 : 0
        pointer.pointee = UInt32(a) << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
    }
}

/// A viewer rectangle cut to the screen, walked row by row: a viewer row is a straight run in
/// the buffer (along a buffer row, or down a column when turned 90°/270°), so each pixel is
/// one pointer step from the last, with no per-pixel rotation arithmetic.
struct ViewerRuns {
    let rows: Range<Int>
    let columns: Range<Int>
    /// In pixels (UInt32s): +1/-1 along a buffer row, +/- a row's length down a column.
    let step: Int
    private let buffer: PixelBuffer
    private let viewer: PixelSize
    private let rotation: Rotation

    init?(buffer: PixelBuffer, rect: PixelRect, rotation: Rotation) {
        viewer = OverlayLayout.viewerSize(buffer: buffer.size, rotation: rotation)
        let x0 = Swift.max(0, rect.x), y0 = Swift.max(0, rect.y)
        let x1 = Swift.min(viewer.width, rect.maxX), y1 = Swift.min(viewer.height, rect.maxY)
        guard x0 < x1, y0 < y1 else { return nil }
        rows = y0..<y1
        columns = x0..<x1
        self.buffer = buffer
        self.rotation = rotation
        let pixelsPerRow = buffer.stride / 4   // DRM pitches of 32-bit pixels are multiples of 4
        switch rotation {
        case .none: step = 1
        case .clockwise90: step = pixelsPerRow
        case .clockwise180: step = -1
        case .clockwise270: step = -pixelsPerRow
        }
    }

    func start(ofRow y: Int) -> UnsafeMutablePointer<UInt32> {
        let (bx, by) = PixelBuffer.bufferPoint(x: columns.lowerBound, y: y, viewer: viewer, rotation: rotation)
        return (buffer.base + by * buffer.stride + bx * 4).assumingMemoryBound(to: UInt32.self)
    }
}
