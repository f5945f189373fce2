/// An 8-bit coverage image (0 transparent, 255 opaque): a line of text, a glyph, a spinner.
/// Drawn in one color by `PixelBuffer.blend(_:at:color:rotation:)`.
public struct AlphaMask: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major, `width * height` values.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height, "mask size mismatch")
        self.width = width; self.height = height; self.pixels = pixels
    }

    public init(width: Int, height: Int) {
        self.init(width: Swift.max(0, width), height: Swift.max(0, height),
                  pixels: [UInt8](repeating: 0, count: Swift.max(0, width) * Swift.max(0, height)))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// How many pixels are at least half covered: tests compare masks by it.
    public var coveredCount: Int { pixels.reduce(0) { $0 + ($1 >= 128 ? 1 : 0) } }
}

/// A line of text rasterized: its mask, and where its baseline is (rows from the mask's top).
public struct RenderedText: Sendable, Equatable {
    /// The glyphs drawn in the text's one colour.
    public let mask: AlphaMask
    public let ascent: Int
    /// Glyphs with colours of their own (emoji), drawn over the mask at their place in it.
    public let colorGlyphs: [ColorGlyph]

    public init(mask: AlphaMask, ascent: Int, colorGlyphs: [ColorGlyph] = []) {
        self.mask = mask; self.ascent = ascent; self.colorGlyphs = colorGlyphs
    }
}

/// A colour glyph's picture and its top-left corner in a line's mask.
public struct ColorGlyph: Sendable, Equatable {
    public let x: Int
    public let y: Int
    public let image: LayerImage
    public init(x: Int, y: Int, image: LayerImage) { self.x = x; self.y = y; self.image = image }
}

/// Turns text into masks: FreeType in KioskText; tests may use a fake.
public protocol TextRasterizer: AnyObject {
    func render(_ text: String, pixelSize: Int) -> RenderedText
}
