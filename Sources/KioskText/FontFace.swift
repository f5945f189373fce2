import CFreeType
import CHarfBuzz
import Foundation
import KioskCore

/// A font that cannot be used, with the file and the reason.
public struct FontError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "font \(path): \(reason)" }
}

/// One TrueType/OpenType face loaded with FreeType: HarfBuzz shapes with it (`shapingFont`),
/// FreeType rasterizes its glyphs into 8-bit coverage masks. FreeType is the font engine every Linux desktop uses; hinting,
/// anti-aliasing and the TrueType format are not things to rewrite. Not thread-safe (neither
/// is an FT_Face): one owner, the presenter thread.
public final class FontFace: TextRasterizer {
    public let path: String
    private var library: FT_Library?
    private var face: FT_Face?

    public init(path: String) throws(FontError) {
        self.path = path
        guard FileManager.default.isReadableFile(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions)" : "no such file"
            throw FontError(path: path, reason: reason)
        }
        guard FT_Init_FreeType(&library) == 0 else { throw FontError(path: path, reason: "FreeType failed to start") }
        let opened = FT_New_Face(library, path, 0, &face)
        // No FT_Done_* here when failing: the class is fully initialized, so deinit runs and
        // frees what was made.
        guard opened == 0, let face else {
            throw FontError(path: path, reason: "not a font FreeType can read (\(Self.describe(opened)))")
        }
        // FT_FACE_FLAG_SCALABLE (1 << 0): bitmap-only fonts cannot be drawn at any size.
        guard face.pointee.face_flags & 1 != 0 else {
            throw FontError(path: path, reason: "a bitmap font; a scalable (TrueType/OpenType) font is needed")
        }
    }

    /// FreeType's error codes for opening a face (fterrdef.h); its own strings are compiled
    /// out in Debian's build.
    static func describe(_ code: FT_Error) -> String {
        switch code {
        case 1: "cannot open the file"
        case 2: "unknown file format"
        case 3: "broken file"
        case 6: "invalid argument"
        default: "FreeType error \(code)"
        }
    }

    deinit {
        if let harfBuzzFont { hb_font_destroy(harfBuzzFont) }
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The family name the file declares (e.g. "DejaVu Sans").
    public var familyName: String {
        face?.pointee.family_name.map { String(cString: $0) } ?? "?"
    }

    /// `text` on one line at `pixelSize` (the em height in pixels), shaped with this face
    /// alone (no fallback): see `ShapedLine`. A `FontStack` adds fallback faces.
    public func render(_ text: String, pixelSize: Int) -> RenderedText {
        ShapedLine(text, faces: [self], pixelSize: pixelSize).rasterize()
    }

    // MARK: what the shaper and the rasterizer ask of a face

    /// HarfBuzz's view of the same FT_Face, made once: it reads the size set on the face.
    private var harfBuzzFont: OpaquePointer?
    private var pixelSize = 0
    /// Rendered glyphs at `pixelSize` by glyph id: a clock redraws the same digits each second.
    private var glyphCache: [UInt32: GlyphBitmap] = [:]

    /// Sets the em size in pixels; false when the face cannot take it.
    func setPixelSize(_ size: Int) -> Bool {
        guard let face, size > 0 else { return false }
        if size == pixelSize { return true }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) == 0 else { return false }
        pixelSize = size
        glyphCache.removeAll(keepingCapacity: true)
        if let harfBuzzFont { hb_ft_font_changed(harfBuzzFont) }
        return true
    }

    /// The HarfBuzz font (`hb_ft_font_create_referenced` keeps the FT_Face alive with it).
    /// Advances are FreeType's hinted ones (load flags FT_LOAD_DEFAULT, not HarfBuzz's default
    /// FT_LOAD_NO_HINTING): whole pixels, as the glyphs are drawn hinted and as the unshaped
    /// renderer placed them, so a Latin line keeps its width and a clock's digits their grid.
    /// `hb-shape --font-funcs=ft --ft-load-flags=0` shapes the same way (the tests compare).
    var shapingFont: OpaquePointer? {
        if harfBuzzFont == nil, let face {
            harfBuzzFont = hb_ft_font_create_referenced(face)
            if let harfBuzzFont { hb_ft_font_set_load_flags(harfBuzzFont, 0) }
        }
        return harfBuzzFont
    }

    /// The glyph the character map gives `scalar`; 0 when the font lacks it (glyph 0 is the
    /// missing-glyph box).
    func glyphIndex(for scalar: UInt32) -> UInt32 {
        guard let face else { return 0 }
        return UInt32(FT_Get_Char_Index(face, FT_ULong(scalar)))
    }

    /// Whether the font's character map has `scalar`.
    func hasGlyph(for scalar: UInt32) -> Bool { glyphIndex(for: scalar) != 0 }

    /// Ascent and descent in whole pixels at the current size.
    var lineMetrics: (ascent: Int, descent: Int) {
        guard let face, pixelSize > 0 else { return (0, 0) }
        let metrics = face.pointee.size.pointee.metrics
        return (Int((metrics.ascender + 63) >> 6), Int((-metrics.descender + 63) >> 6))
    }

    /// Glyph `id` rasterized at the current size (hinted, anti-aliased, as before shaping).
    func glyph(_ id: UInt32) -> GlyphBitmap? {
        if let cached = glyphCache[id] { return cached }
        // FT_LOAD_RENDER (1 << 2): load and rasterize to an 8-bit anti-aliased bitmap.
        guard let face, FT_Load_Glyph(face, id, 4) == 0, let slot = face.pointee.glyph else { return nil }
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width), rows = Int(bitmap.rows)
        var mask = AlphaMask(width: width, height: rows)
        // Only 8-bit grey bitmaps (FT_PIXEL_MODE_GRAY = 2) are copied; others draw nothing.
        if let buffer = bitmap.buffer, width > 0, rows > 0, bitmap.pixel_mode == 2 {
            for row in 0..<rows {
                let source = buffer + row * Int(bitmap.pitch)
                for column in 0..<width { mask[column, row] = source[column] }
            }
        }
        let rendered = GlyphBitmap(mask: mask, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top))
        // A bound on memory for text that never repeats (a ticker in many scripts).
        if glyphCache.count >= 4096 { glyphCache.removeAll(keepingCapacity: true) }
        glyphCache[id] = rendered
        return rendered
    }
}

/// A glyph's coverage and where it sits from the pen: `left` pixels right, `top` pixels above
/// the baseline.
struct GlyphBitmap {
    let mask: AlphaMask
    let left: Int
    let top: Int
}
