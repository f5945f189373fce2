/// Alpha blending into an XRGB8888 buffer, in the viewer's (upright) coordinates: a buffer
/// the engine fills turned by the display rotation (VideoOutput.softwareRotation) gets the
/// overlay turned the same way, so it comes out upright on the physical screen.
extension PixelBuffer {
    /// Blends `color` (0x00RRGGBB) over `rect` at `opacity` (255 opaque).
    public func blendFill(_ rect: PixelRect, color: UInt32, opacity: UInt8 = 255, rotation: Rotation = .none) {
        forEachViewerPixel(in: rect, rotation: rotation) { pointer, _, _ in
            Self.blend(pointer, color: color, alpha: Int(opacity))
        }
    }

    /// Blends `color` through `mask`, its top-left corner at `origin` (parts off the screen
    /// are cut), the mask's coverage scaled by `opacity`.
    public func blend(_ mask: AlphaMask, at origin: (x: Int, y: Int), color: UInt32, opacity: UInt8 = 255,
                      rotation: Rotation = .none) {
        let rect = PixelRect(x: origin.x, y: origin.y, width: mask.width, height: mask.height)
        mask.pixels.withUnsafeBufferPointer { coverage in
            forEachViewerPixel(in: rect, rotation: rotation) { pointer, mx, my in
                let alpha = Int(coverage[my * mask.width + mx]) * Int(opacity) / 255
                if alpha > 0 { Self.blend(pointer, color: color, alpha: alpha) }
            }
        }
    }

    /// The pixel the viewer sees at (x, y), as stored in this buffer.
    public func viewerPixel(x: Int, y: Int, rotation: Rotation) -> UInt32 {
        let (bx, by) = Self.bufferPoint(x: x, y: y, viewer: OverlayLayout.viewerSize(buffer: size, rotation: rotation),
                                        rotation: rotation)
        return pixel(x: bx, y: by)
    }

    /// Calls `body` for every pixel of the viewer rect `rect` that is on the screen, with the
    /// buffer memory it is stored at and its offset inside `rect`.
    private func forEachViewerPixel(in rect: PixelRect, rotation: Rotation,
                                    _ body: (UnsafeMutablePointer<UInt32>, Int, Int) -> Void) {
        let viewer = OverlayLayout.viewerSize(buffer: size, rotation: rotation)
        let x0 = Swift.max(0, rect.x), y0 = Swift.max(0, rect.y)
        let x1 = Swift.min(viewer.width, rect.maxX), y1 = Swift.min(viewer.height, rect.maxY)
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            for x in x0..<x1 {
                let (bx, by) = Self.bufferPoint(x: x, y: y, viewer: viewer, rotation: rotation)
                let pointer = (base + by * stride + bx * 4).assumingMemoryBound(to: UInt32.self)
                body(pointer, x - rect.x, y - rect.y)
            }
        }
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

    private static func blend(_ pointer: UnsafeMutablePointer<UInt32>, color: UInt32, alpha: Int) {
        if alpha >= 255 { pointer.pointee = color & 0x00FF_FFFF; return }
        let dst = pointer.pointee
        let keep = 255 - alpha
        let r = (Int((color >> 16) & 0xFF) * alpha + Int((dst >> 16) & 0xFF) * keep + 127) / 255
        let g = (Int((color >> 8) & 0xFF) * alpha + Int((dst >> 8) & 0xFF) * keep + 127) / 255
        let b = (Int(color & 0xFF) * alpha + Int(dst & 0xFF) * keep + 127) / 255
        let out = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
        pointer.pointee = out
    }
}
