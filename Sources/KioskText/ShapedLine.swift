import CHarfBuzz
import KioskCore

/// One glyph placed by HarfBuzz. `face` indexes the faces the line was shaped with, `cluster`
/// the line's Unicode scalars (the first character the glyph stands for); advance and offsets
/// are in 1/64 pixel (26.6), as HarfBuzz reports them for a FreeType face.
public struct ShapedGlyph: Equatable, Sendable {
    public let face: Int
    public let glyphID: UInt32
    public let cluster: Int
    public let xAdvance: Int32
    public let xOffset: Int32
    public let yOffset: Int32
}

/// A line of text shaped for drawing, glyphs in visual order (left to right on the screen):
/// FriBidi splits it into runs of one direction and orders them; each run is split again by
/// font (a character goes to the first face whose character map has it, marks stay with their
/// base); HarfBuzz shapes each piece (Arabic joining, Hebrew points, kerning, ligatures) with
/// the whole line as context; FreeType draws the glyphs at HarfBuzz's positions.
/// Not shaped: vertical text, line breaking (a line is one line), font features from config.
public struct ShapedLine {
    public private(set) var glyphs: [ShapedGlyph] = []
    /// The Unicode scalars shaped (the text, cut at `maximumScalars`).
    public let scalars: [UInt32]
    let faces: [FontFace]
    let pixelSize: Int

    /// Longer text is cut: shaping time grows with it and no screen shows more.
    static let maximumScalars = 8192
    /// The widest mask drawn: room for a ticker's long line (8192 characters at ~8 px, a few
    /// hundred at 48 px), not an unbounded allocation (65536 x 60 px is 3.75 MiB).
    static let maximumWidth = 65536

    public init(_ text: String, faces: [FontFace], pixelSize: Int) {
        // Swift strings are valid Unicode: invalid UTF-8 was replaced (U+FFFD) when read.
        scalars = Array(text.unicodeScalars.prefix(Self.maximumScalars).map(\.value))
        self.faces = faces
        self.pixelSize = pixelSize
        guard !faces.isEmpty, !scalars.isEmpty, pixelSize > 0,
              faces.allSatisfy({ $0.setPixelSize(pixelSize) }) else { return }
        guard let buffer = hb_buffer_create() else { return }
        defer { hb_buffer_destroy(buffer) }
        let fontOfScalar = Self.chooseFaces(scalars, faces: faces)
        let scriptOfScalar = Self.scripts(scalars)
        // One key per face and script: a piece is shaped with one font and one script's rules.
        let pieceKey = zip(fontOfScalar, scriptOfScalar).map { $0 << 32 | Int($1.rawValue) }
        for run in BidiLine.runs(scalars) {
            var pieces = Self.split(run.range, by: pieceKey)
            if run.isRightToLeft { pieces.reverse() }
            for piece in pieces {
                shape(piece.range, face: fontOfScalar[piece.range.lowerBound], script: scriptOfScalar[piece.range.lowerBound],
                      rightToLeft: run.isRightToLeft, buffer: buffer)
            }
        }
    }

    private mutating func shape(_ range: Range<Int>, face: Int, script: hb_script_t, rightToLeft: Bool, buffer: OpaquePointer) {
        guard let font = faces[face].shapingFont else { return }
        hb_buffer_clear_contents(buffer)
        // The whole line goes in as context (joining across a font change), the piece as the item.
        scalars.withUnsafeBufferPointer { text in
            hb_buffer_add_utf32(buffer, text.baseAddress, Int32(text.count), UInt32(range.lowerBound), Int32(range.count))
        }
        // The direction is FriBidi's (digits inside Hebrew are a left-to-right run at level 2,
        // which guessing from the script could not know); the script is the piece's own (a run
        // of Hebrew then Arabic would otherwise be guessed Hebrew whole, and the Arabic left
        // unjoined); the language is guessed (the locale's).
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, script)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return }
        glyphs.reserveCapacity(glyphs.count + Int(count))
        for index in 0..<Int(count) {
            glyphs.append(ShapedGlyph(face: face, glyphID: infos[index].codepoint, cluster: Int(infos[index].cluster),
                                      xAdvance: positions[index].x_advance, xOffset: positions[index].x_offset,
                                      yOffset: positions[index].y_offset))
        }
    }

    /// The face for each scalar: the first that has it; combining marks, joiners and variation
    /// selectors take their base's face (a point drawn from another font would float apart);
    /// nothing has it: the first face (its missing-glyph box).
    static func chooseFaces(_ scalars: [UInt32], faces: [FontFace]) -> [Int] {
        var chosen: [Int] = []
        chosen.reserveCapacity(scalars.count)
        for value in scalars {
            if faces.count == 1 { chosen.append(0); continue }
            if let previous = chosen.last, attachesToBase(value) { chosen.append(previous); continue }
            chosen.append(faces.firstIndex { $0.hasGlyph(for: value) } ?? 0)
        }
        return chosen
    }

    /// Each scalar's script (HarfBuzz's Unicode data); spaces, digits, punctuation and marks
    /// (Common, Inherited) take the script before them, or at the start the first one after.
    static func scripts(_ scalars: [UInt32]) -> [hb_script_t] {
        let unicode = hb_unicode_funcs_get_default()
        var scripts = scalars.map { hb_unicode_script(unicode, $0) }
        let neutral: Set<UInt32> = [HB_SCRIPT_COMMON.rawValue, HB_SCRIPT_INHERITED.rawValue, HB_SCRIPT_UNKNOWN.rawValue]
        var last: hb_script_t? = nil
        for index in scripts.indices {
            if neutral.contains(scripts[index].rawValue) { if let last { scripts[index] = last } } else { last = scripts[index] }
        }
        if let first = scripts.first(where: { !neutral.contains($0.rawValue) }) {
            for index in scripts.indices where neutral.contains(scripts[index].rawValue) { scripts[index] = first }
        }
        return scripts
    }

    static func attachesToBase(_ value: UInt32) -> Bool {
        guard let scalar = Unicode.Scalar(value) else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return value == 0x200D || (0xFE00...0xFE0F).contains(value) || (0xE0100...0xE01EF).contains(value)
        }
    }

    /// `range` cut where the face changes, in logical order.
    static func split(_ range: Range<Int>, by face: [Int]) -> [(range: Range<Int>, face: Int)] {
        var pieces: [(range: Range<Int>, face: Int)] = []
        var start = range.lowerBound
        for index in range where index > start && face[index] != face[start] {
            pieces.append((start..<index, face[start]))
            start = index
        }
        if start < range.upperBound { pieces.append((start..<range.upperBound, face[start])) }
        return pieces
    }

    /// The glyphs drawn into a mask as tall as the tallest used face's line and as wide as
    /// the pen travels (cut at `maximumWidth`); the baseline at `ascent`.
    public func rasterize() -> RenderedText {
        guard !glyphs.isEmpty else {
            var metrics: (ascent: Int, descent: Int) = (0, 0)
            if let first = faces.first, first.setPixelSize(pixelSize) { metrics = first.lineMetrics }
            return RenderedText(mask: AlphaMask(width: 0, height: metrics.ascent + metrics.descent), ascent: metrics.ascent)
        }
        var ascent = 0, descent = 0
        for index in Set(glyphs.map(\.face)).union([0]) {
            let metrics = faces[index].lineMetrics
            ascent = Swift.max(ascent, metrics.ascent); descent = Swift.max(descent, metrics.descent)
        }
        var placed: [(x: Int, y: Int, bitmap: GlyphBitmap)] = []
        var pen = 0, right = 0
        for glyph in glyphs {
            guard pen >> 6 < Self.maximumWidth else { break }
            if let bitmap = faces[glyph.face].glyph(glyph.glyphID) {
                let x = ((pen + Int(glyph.xOffset) + 32) >> 6) + bitmap.left
                let y = ascent - ((Int(glyph.yOffset) + 32) >> 6) - bitmap.top
                placed.append((x, y, bitmap))
                right = Swift.max(right, x + bitmap.mask.width)
            }
            pen += Int(glyph.xAdvance)
            right = Swift.max(right, (pen + 32) >> 6)
        }
        var line = AlphaMask(width: Swift.min(right, Self.maximumWidth), height: ascent + descent)
        var colorGlyphs: [ColorGlyph] = []
        for (originX, originY, bitmap) in placed {
            // A colour glyph keeps its own colours: drawn over the mask, not through it.
            if let image = bitmap.color {
                colorGlyphs.append(ColorGlyph(x: originX, y: originY, image: image))
                continue
            }
            let mask = bitmap.mask
            for row in 0..<mask.height {
                let y = originY + row
                guard y >= 0, y < line.height else { continue }
                for column in 0..<mask.width {
                    let x = originX + column
                    guard x >= 0, x < line.width else { continue }
                    line[x, y] = Swift.max(line[x, y], mask[column, row])
                }
            }
        }
        return RenderedText(mask: line, ascent: ascent, colorGlyphs: colorGlyphs)
    }
}
