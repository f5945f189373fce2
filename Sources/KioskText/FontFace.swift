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
        // FT_FACE_FLAG_SCALABLE (1 << 0): bitmap-only fonts cannot be drawn at any size, except
        // colour bitmap fonts (Noto Color Emoji's CBDT), which are scaled from their strike.
        isColorBitmap = face.pointee.face_flags & 1 == 0 && face.pointee.face_flags & (1 << 14) != 0
            && face.pointee.num_fixed_sizes > 0
        guard face.pointee.face_flags & 1 != 0 || isColorBitmap else {
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
    /// A colour bitmap font (CBDT): glyphs come at fixed sizes (`FT_Select_Size`) in BGRA and
    /// are scaled to the pixel size; the line's mask is one colour, so only their alpha is drawn.
    private(set) var isColorBitmap = false
    /// The selected strike's pixels per em (colour bitmap fonts).
    private var strikePixels = 0
    /// Rendered glyphs at `pixelSize` by glyph id: a clock redraws the same digits each second.
    private var glyphCache: [UInt32: GlyphBitmap] = [:]

    /// Sets the em size in pixels; false when the face cannot take it.
    func setPixelSize(_ size: Int) -> Bool {
        guard let face, size > 0 else { return false }
        if size == pixelSize { return true }
        if isColorBitmap {
            guard selectStrike(for: size) else { return false }
        } else {
            guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) == 0 else { return false }
        }
        pixelSize = size
        glyphCache.removeAll(keepingCapacity: true)
        if let harfBuzzFont {
            if isColorBitmap { hb_font_set_scale(harfBuzzFont, Int32(size * 64), Int32(size * 64)) }
            else { hb_ft_font_changed(harfBuzzFont) }
        }
        return true
    }

    /// The smallest strike at least `size` pixels (scaled down looks better than up), else the
    /// largest.
    private func selectStrike(for size: Int) -> Bool {
        guard let face, let sizes = face.pointee.available_sizes else { return false }
        let strikes = (0..<Int(face.pointee.num_fixed_sizes)).map { (index: $0, pixels: Int(sizes[$0].y_ppem >> 6)) }
        guard let chosen = strikes.filter({ $0.pixels >= size }).min(by: { $0.pixels < $1.pixels })
                ?? strikes.max(by: { $0.pixels < $1.pixels }),
              chosen.pixels > 0, FT_Select_Size(face, FT_Int(chosen.index)) == 0 else { return false }
        strikePixels = chosen.pixels
        return true
    }

    /// The HarfBuzz font (`hb_ft_font_create_referenced` keeps the FT_Face alive with it).
    /// Advances are FreeType's hinted ones (load flags FT_LOAD_DEFAULT, not HarfBuzz's default
    /// FT_LOAD_NO_HINTING): whole pixels, as the glyphs are drawn hinted and as the unshaped
    /// renderer placed them, so a Latin line keeps its width and a clock's digits their grid.
    /// `hb-shape --font-funcs=ft --ft-load-flags=0` shapes the same way (the tests compare).
    var shapingFont: OpaquePointer? {
        if harfBuzzFont == nil, let face {
            if isColorBitmap {
                // HarfBuzz's own OpenType functions on the face's tables, scaled to the pixel
                // size: hb-ft would measure at the strike's size, not the line's.
                let tables = hb_ft_face_create_referenced(face)
                harfBuzzFont = hb_font_create(tables)
                hb_face_destroy(tables)
                if let harfBuzzFont, pixelSize > 0 { hb_font_set_scale(harfBuzzFont, Int32(pixelSize * 64), Int32(pixelSize * 64)) }
            } else {
                harfBuzzFont = hb_ft_font_create_referenced(face)
                if let harfBuzzFont { hb_ft_font_set_load_flags(harfBuzzFont, 0) }
            }
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
        if isColorBitmap {
            let unitsPerEm = Swift.max(1, Int(face.pointee.units_per_EM))
            return ((Int(face.pointee.ascender) * pixelSize + unitsPerEm - 1) / unitsPerEm,
                    (-Int(face.pointee.descender) * pixelSize + unitsPerEm - 1) / unitsPerEm)
        }
        let metrics = face.pointee.size.pointee.metrics
        return (Int((metrics.ascender + 63) >> 6), Int((-metrics.descender + 63) >> 6))
    }

    /// Glyph `id` rasterized at the current size (hinted, anti-aliased, as before shaping).
    func glyph(_ id: UInt32) -> GlyphBitmap? {
        if let cached = glyphCache[id] { return cached }
        if isColorBitmap { return remember(id, colorGlyph(id)) }
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
        return remember(id, GlyphBitmap(mask: mask, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top)))
    }

    private func remember(_ id: UInt32, _ glyph: GlyphBitmap?) -> GlyphBitmap? {
        guard let glyph else { return nil }
        // A bound on memory for text that never repeats (a ticker in many scripts).
        if glyphCache.count >= 4096 { glyphCache.removeAll(keepingCapacity: true) }
        glyphCache[id] = glyph
        return glyph
    }

    /// A colour glyph's picture (and its alpha as coverage), box-filtered from its strike to the
    /// pixel size. FreeType's BGRA is premultiplied: averaged so, then made straight for
    /// `LayerImage`.
    private func colorGlyph(_ id: UInt32) -> GlyphBitmap? {
        // FT_LOAD_COLOR (1 << 20): the BGRA bitmap; FT_PIXEL_MODE_BGRA is 7.
        guard let face, strikePixels > 0, FT_Load_Glyph(face, id, 1 << 20) == 0, let slot = face.pointee.glyph,
              slot.pointee.bitmap.pixel_mode == 7, let buffer = slot.pointee.bitmap.buffer else { return nil }
        let bitmap = slot.pointee.bitmap
        let sourceWidth = Int(bitmap.width), sourceRows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        let scale = Double(pixelSize) / Double(strikePixels)
        let width = Int((Double(sourceWidth) * scale).rounded(.up)), rows = Int((Double(sourceRows) * scale).rounded(.up))
        var mask = AlphaMask(width: width, height: rows)
        var pixels = [UInt32](repeating: 0, count: width * rows)
        for y in 0..<rows {
            let top = Int(Double(y) / scale), bottom = Swift.max(top + 1, Swift.min(sourceRows, Int(Double(y + 1) / scale)))
            for x in 0..<width {
                let left = Int(Double(x) / scale), right = Swift.max(left + 1, Swift.min(sourceWidth, Int(Double(x + 1) / scale)))
                var sums = (b: 0, g: 0, r: 0, a: 0), count = 0
                for row in top..<Swift.min(bottom, sourceRows) {
                    for column in left..<Swift.min(right, sourceWidth) {
                        let p = buffer + row * pitch + column * 4
                        sums.b += Int(p[0]); sums.g += Int(p[1]); sums.r += Int(p[2]); sums.a += Int(p[3])
                        count += 1
                    }
                }
                guard count > 0, sums.a > 0 else { continue }
                let alpha = sums.a / count
                mask[x, y] = UInt8(alpha)
                let straight = { (sum: Int) in UInt32(Swift.min(255, (sum * 255 + sums.a / 2) / sums.a)) }
                pixels[y * width + x] = UInt32(alpha) << 24 | straight(sums.r) << 16 | straight(sums.g) << 8 | straight(sums.b)
            }
        }
        return GlyphBitmap(mask: mask, left: Int((Double(slot.pointee.bitmap_left) * scale).rounded()),
                           top: Int((Double(slot.pointee.bitmap_top) * scale).rounded()),
                           color: LayerImage(width: width, height: rows, pixels: pixels))
    }
}

/// A glyph's coverage and where it sits from the pen: `left` pixels right, `top` pixels above
/// the baseline.
struct GlyphBitmap {
    let mask: AlphaMask
    let left: Int
    let top: Int
    /// A colour glyph's own picture (an emoji); nil: drawn in the text's colour through `mask`.
    var color: LayerImage? = nil
}
