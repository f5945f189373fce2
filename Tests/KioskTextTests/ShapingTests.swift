import Foundation
import KioskCore
import Testing
@testable import KioskText

/// HarfBuzz shaping and FriBidi ordering through KioskText, against the `hb-shape` and `fribidi`
/// tools on the same font (DejaVu Sans, fonts-dejavu-core) and size.
@Suite struct ShapingTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    static let dejaVuSerif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
    static let arabic = "مرحبا بالعالم"
    static let pointedHebrew = "שָׁלוֹם עוֹלָם"

    @Test(arguments: [arabic, pointedHebrew])
    func rightToLeftTextShapesAsHbShapeInFribidisOrder(_ text: String) throws {
        let face = try FontFace(path: Self.dejaVu)
        let line = ShapedLine(text, faces: [face], pixelSize: 32)
        let reference = try ShapingReference.hbShape(font: Self.dejaVu, text: text, pixelSize: 32)
        #expect(ShapingReference.glyphs(line) == reference)
        // Shaping did something the character map alone does not: contextual Arabic forms,
        // Hebrew points as zero-advance glyphs placed on their letters.
        let nominal = Set(line.scalars.map { face.glyphIndex(for: $0) })
        #expect(!Set(line.glyphs.map(\.glyphID)).isSubset(of: nominal) || line.glyphs.contains { $0.xAdvance == 0 })
        let visual = try ShapingReference.fribidiVisualToLogical(text)
        let clusters = Set(line.glyphs.map(\.cluster))
        #expect(line.glyphs.map(\.cluster).reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
                == ShapingReference.visualClusters(visual, clusters: clusters))
        #expect(line.rasterize().mask.coveredCount > 100)
    }

    @Test func aMixedLineIsOrderedAsFribidiOrdersIt() throws {
        let text = "Price שלום 42 עולם!"
        let line = try FontLocator.open(.file(Self.dejaVu)).shape(text, pixelSize: 24)
        let visual = try ShapingReference.fribidiVisualToLogical(text)
        #expect(visual.count == line.scalars.count)
        #expect(line.glyphs.map(\.cluster) == visual, "one glyph per character here, left to right as fribidi")
        // Each run is shaped as hb-shape shapes it alone (digits left to right inside the Hebrew).
        for run in ["Price ", "שלום", "42", "עולם"] {
            let reference = try ShapingReference.hbShape(font: Self.dejaVu, text: run, pixelSize: 24).map(\.g)
            let ours = ShapedLine(run, faces: [try FontFace(path: Self.dejaVu)], pixelSize: 24).glyphs.map(\.glyphID)
            #expect(ours == reference, "\(run)")
        }
    }

    /// Hebrew then Arabic make one right-to-left run; each script is shaped by its own rules
    /// (the Arabic joined), as hb-shape shapes each alone.
    @Test func aRunOfTwoScriptsIsShapedScriptByScript() throws {
        let line = ShapedLine("עולם مرحبا", faces: [try FontFace(path: Self.dejaVu)], pixelSize: 32)
        let arabic = try ShapingReference.hbShape(font: Self.dejaVu, text: "مرحبا", pixelSize: 32).map(\.g)
        let hebrew = try ShapingReference.hbShape(font: Self.dejaVu, text: "עולם", pixelSize: 32).map(\.g)
        // Visual order: the Arabic (logically last) on the left, the space, the Hebrew.
        #expect(Array(line.glyphs.map(\.glyphID).prefix(arabic.count)) == arabic)
        #expect(Array(line.glyphs.map(\.glyphID).suffix(hebrew.count)) == hebrew)
    }

    @Test func levelsAreReversedByRuleL2() {
        let runs = [BidiRun(range: 0..<2, level: 0), BidiRun(range: 2..<4, level: 1), BidiRun(range: 4..<6, level: 2),
                    BidiRun(range: 6..<8, level: 1), BidiRun(range: 8..<9, level: 0)]
        #expect(BidiLine.visualOrder(runs).map(\.range.lowerBound) == [0, 6, 4, 2, 8])
        #expect(BidiLine.runs([]) == [])
    }

    @Test func aCharacterTheFirstFontLacksIsDrawnFromTheNext() throws {
        let serif = try FontFace(path: Self.dejaVuSerif), sans = try FontFace(path: Self.dejaVu)
        #expect(!serif.hasGlyph(for: 0x628) && sans.hasGlyph(for: 0x628), "DejaVu Serif has no Arabic")
        let stacked = FontStack(faces: [serif, sans]).shape("A ب", pixelSize: 32)
        #expect(stacked.glyphs.map(\.face) == [0, 0, 1])
        #expect(stacked.glyphs.last?.glyphID == sans.glyphIndex(for: 0x628))
        // Drawn: where the first font alone draws its missing-glyph box, the stack draws the
        // letter itself, as DejaVu Sans draws it.
        let alone = FontStack(faces: [serif]).render("ب", pixelSize: 32).mask
        let fallback = FontStack(faces: [serif, sans]).render("ب", pixelSize: 32).mask
        let sansOnly = FontStack(faces: [sans]).render("ب", pixelSize: 32).mask
        #expect(fallback.coveredCount > 0 && fallback.coveredCount == sansOnly.coveredCount)
        #expect(fallback != alone)
    }

    /// Noto Color Emoji (fonts-noto-color-emoji) is CBDT: one strike of BGRA bitmaps, scaled to
    /// the line's size and kept in their colours beside the line's one-colour mask.
    @Test func colourEmojiAreScaledFromTheirStrikeAndKeepTheirColours() throws {
        let emojiPath = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
        let sans = try FontFace(path: Self.dejaVu), emoji = try FontFace(path: emojiPath)
        #expect(emoji.isColorBitmap && !sans.isColorBitmap)
        let thumbsUp: UInt32 = 0x1F44D
        #expect(!sans.hasGlyph(for: thumbsUp) && emoji.hasGlyph(for: thumbsUp), "DejaVu Sans has no U+1F44D")
        let stack = FontStack(faces: [sans, emoji])
        let line = stack.shape("a\u{1F44D}\u{1F3FD}b", pixelSize: 32)
        // The skin tone joins the thumb in one glyph (the font's ligature), from the emoji face.
        #expect(line.glyphs.map(\.face) == [0, 1, 0])
        let reference = try ShapingReference.hbShape(font: emojiPath, text: "\u{1F44D}\u{1F3FD}", pixelSize: 32, functions: "ot")
        #expect(line.glyphs[1].glyphID == reference.first?.g)
        #expect(line.glyphs[1].xAdvance == reference.first?.ax, "advance at 32 px, not at the strike's 109")
        let drawn = stack.render("\u{1F44D}", pixelSize: 32), plain = FontStack(faces: [sans]).render("\u{1F44D}", pixelSize: 32)
        #expect(drawn.mask.width >= 28 && drawn.mask.width <= 48, "about an em wide: \(drawn.mask.width)")
        #expect(drawn.mask.height <= 64)
        // The thumb is a picture of its own (the mask stays empty), in the font's yellow.
        #expect(drawn.mask.coveredCount == 0 && plain.mask.coveredCount > 0 && plain.colorGlyphs.isEmpty)
        let thumb = try #require(drawn.colorGlyphs.first?.image)
        #expect(drawn.colorGlyphs.count == 1 && thumb.width >= 28 && thumb.width <= 48)
        let opaque = thumb.pixels.filter { $0 >> 24 == 255 }
        let yellow = opaque.filter { ($0 >> 16) & 0xFF > 200 && ($0 >> 8) & 0xFF > 140 && $0 & 0xFF < 110 }
        #expect(opaque.count > 300 && yellow.count > opaque.count / 3, "\(yellow.count) yellow of \(opaque.count) opaque")
        // Drawn over white through a half opacity: yellow halfway, the text's colour unused.
        let memory = UnsafeMutablePointer<UInt32>.allocate(capacity: 64 * 64)
        defer { memory.deallocate() }
        memory.initialize(repeating: 0x00FF_FFFF, count: 64 * 64)
        let screen = PixelBuffer(base: UnsafeMutableRawPointer(memory), size: PixelSize(width: 64, height: 64), stride: 256, index: 0)
        screen.blend(drawn, at: (0, 0), color: 0x0000_00FF, opacity: 128)
        let drawnPixels = (0..<(64 * 64)).map { memory[$0] }
        #expect(!drawnPixels.contains { $0 & 0xFF > 0xF0 && ($0 >> 16) & 0xFF < 0x80 }, "blue text colour where the emoji is")
        #expect(drawnPixels.contains { ($0 >> 16) & 0xFF > 0xF0 && $0 & 0xFF < 0xC0 })
    }

    @Test func marksStayWithTheirBasesFont() throws {
        let serif = try FontFace(path: Self.dejaVuSerif), sans = try FontFace(path: Self.dejaVu)
        // U+05E9 U+05B8 (shin, qamats): the point goes with the letter's face even if the
        // first face had it.
        #expect(ShapedLine.chooseFaces([0x41, 0x5E9, 0x5B8], faces: [serif, sans]) == [0, 1, 1])
    }

    @Test func aMissingFontInTheListIsOneProblemAndTheOthersAreUsed() throws {
        let stack = try FontLocator.open(.list([.file("/nonexistent/kiosk.ttf"), .file(Self.dejaVuSerif), .auto]))
        #expect(stack.problems == [FontError(path: "/nonexistent/kiosk.ttf", reason: "no such file")])
        #expect(stack.path == Self.dejaVuSerif)
        #expect(stack.faces.map(\.path).filter { $0 == Self.dejaVu }.count == 1, "auto and the fallback DejaVu Sans once")
        #expect(throws: FontError.self) { try FontLocator.open(.list([.file("/nonexistent/a.ttf"), .file("/nonexistent/b.ttf")])) }
    }

    @Test(arguments: ["", "\u{FFFD}\u{FFFD}", String(repeating: "ticker ", count: 3000), String(repeating: "W", count: 8000), "\u{202E}abc\u{202C} \u{200F}", "\u{0301}", "e\u{0301}\u{0301}\u{0301}"])
    func anyTextRendersWithoutCrashingAndLongLinesAreClipped(_ text: String) throws {
        let stack = try FontLocator.open(.auto)
        let rendered = stack.render(text, pixelSize: 40)
        #expect(rendered.mask.width <= ShapedLine.maximumWidth)
        #expect(rendered.mask.height > 0 && rendered.ascent > 0)
        // Invalid UTF-8 read from a file becomes U+FFFD before it gets here.
        let decoded = String(decoding: [0x41, 0xFF, 0xFE, 0x42] as [UInt8], as: UTF8.self)
        #expect(stack.render(decoded, pixelSize: 40).mask.width > 0)
    }
}
