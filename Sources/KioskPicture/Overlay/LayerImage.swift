/// A picture for a layer, already at its size on the screen: 0xAARRGGBB pixels, row-major,
/// not premultiplied (as swscale's BGRA gives them on a little-endian machine).
public struct LayerImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt32]

    public init(width: Int, height: Int, pixels: [UInt32]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "image size mismatch")
        self.width = width; self.height = height; self.pixels = pixels
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
}

extension PixelBuffer {
    /// Blends `image` with its own alpha times `opacity` (255: as it is), its top-left corner
    /// at `origin` in the viewer's coordinates; parts off the screen are cut.
    public func blend(_ image: LayerImage, at origin: (x: Int, y: Int), opacity: UInt8 = 255, rotation: Rotation = .none) {
        let rect = PixelRect(x: origin.x, y: origin.y, width: image.width, height: image.height)
        guard let run = ViewerRuns(buffer: self, rect: rect, rotation: rotation) else { return }
        let keepsAlpha = format == .argb8888
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in run.rows {
                var pointer = run.start(ofRow: y)
                var index = (y - rect.y) * image.width + (run.columns.lowerBound - rect.x)
                for _ in run.columns {
                    let pixel = pixels[index]
                    let alpha = Int(pixel >> 24) * Int(opacity) / 255
                    if alpha > 0 { Self.blend(pointer, color: pixel & 0xFF_FFFF, alpha: alpha, keepsAlpha: keepsAlpha) }
                    pointer += run.step
                    index += 1
                }
            }
        }
    }
}
