import CFreeType
import Foundation
import KioskCore

/// A font that cannot be used, with the file and the reason.
public struct FontError: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "font \(path): \(reason)" }
}

/// One TrueType/OpenType face loaded with FreeType, rasterizing a line of UTF-8 text into an
/// 8-bit coverage mask. FreeType is the font engine every Linux desktop uses; hinting,
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
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The family name the file declares (e.g. "DejaVu Sans").
    public var familyName: String {
        face?.pointee.family_name.map { String(cString: $0) } ?? "?"
    }

    /// `text` on one line at `pixelSize` (the em height in pixels): a mask as tall as the
    /// font's line (ascent + descent) and as wide as the pen travels; the baseline at `ascent`.
    /// Characters the font lacks draw as its missing-glyph box.
    public func render(_ text: String, pixelSize: Int) -> RenderedText {
        guard let face, pixelSize > 0, FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize)) == 0 else {
            return RenderedText(mask: AlphaMask(width: 0, height: 0), ascent: 0)
        }
        let metrics = face.pointee.size.pointee.metrics
        let ascent = Int((metrics.ascender + 63) >> 6)
        let descent = Int((-metrics.descender + 63) >> 6)
        var glyphs: [(x: Int, top: Int, bitmap: AlphaMask)] = []
        var pen = 0, right = 0
        for scalar in text.unicodeScalars {
            // FT_LOAD_RENDER (1 << 2): load and rasterize to an 8-bit anti-aliased bitmap.
            guard FT_Load_Char(face, FT_ULong(scalar.value), 4) == 0, let slot = face.pointee.glyph else { continue }
            let bitmap = slot.pointee.bitmap
            let width = Int(bitmap.width), rows = Int(bitmap.rows)
            var mask = AlphaMask(width: width, height: rows)
            if let buffer = bitmap.buffer, width > 0, rows > 0 {
                for row in 0..<rows {
                    let source = buffer + row * Int(bitmap.pitch)
                    for column in 0..<width { mask[column, row] = source[column] }
                }
            }
            let x = pen + Int(slot.pointee.bitmap_left)
            glyphs.append((x, Int(slot.pointee.bitmap_top), mask))
            pen += Int((slot.pointee.advance.x + 32) >> 6)
            right = Swift.max(right, pen, x + width)
        }
        var line = AlphaMask(width: right, height: ascent + descent)
        for glyph in glyphs {
            for row in 0..<glyph.bitmap.height {
                let y = ascent - glyph.top + row
                guard y >= 0, y < line.height else { continue }
                for column in 0..<glyph.bitmap.width {
                    let x = glyph.x + column
                    guard x >= 0, x < line.width else { continue }
                    line[x, y] = Swift.max(line[x, y], glyph.bitmap[column, row])
                }
            }
        }
        return RenderedText(mask: line, ascent: ascent)
    }
}
