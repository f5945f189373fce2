import Foundation
import KioskCore
import Testing
@testable import KioskText

/// FreeType through KioskText, with the font the product ships with (fonts-dejavu-core).
@Suite struct FontFaceTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    @Test func rendersANonEmptyMaskWithTheBaselineInside() throws {
        let face = try FontFace(path: Self.dejaVu)
        let line = face.render("12:34", pixelSize: 32)
        #expect(line.mask.width > 32 * 2, "five characters at 32 px are wider than two ems")
        #expect(line.mask.height >= 32 && line.mask.height <= 48)
        #expect(line.ascent > 0 && line.ascent < line.mask.height)
        #expect(line.mask.coveredCount > 100, "the digits cover pixels")
        // Digits sit on the baseline: nothing below the descent line's start... but ink above it.
        let inkAbove = (0..<line.ascent).contains { y in (0..<line.mask.width).contains { line.mask[$0, y] > 128 } }
        #expect(inkAbove)
    }

    @Test func aWiderStringGivesAWiderMaskAndBiggerPixelsATallerOne() throws {
        let face = try FontFace(path: Self.dejaVu)
        let short = face.render("0:01", pixelSize: 24), long = face.render("10:00:01", pixelSize: 24)
        #expect(long.mask.width > short.mask.width)
        #expect(face.render("0:01", pixelSize: 48).mask.height > short.mask.height)
        #expect(face.render("", pixelSize: 24).mask.width == 0)
    }

    @Test func aMissingFontIsAClearError() {
        #expect(throws: FontError(path: "/nonexistent/kiosk.ttf", reason: "no such file")) {
            try FontFace(path: "/nonexistent/kiosk.ttf")
        }
    }

    @Test func aFileThatIsNotAFontIsAClearError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-not-a-font-\(getpid()).ttf").path
        try Data("this is no font".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try FontFace(path: path)
            Issue.record("a text file loaded as a font")
        } catch {
            #expect(error.path == path)
            #expect(error.description.contains("not a font FreeType can read (unknown file format)"), "\(error)")
        }
    }

    @Test func autoFindsAFont() throws {
        let face = try FontLocator.open(.auto)
        #expect(face.path == Self.dejaVu, "fonts-dejavu-core is in deploy/packages.txt")
        #expect(face.familyName == "DejaVu Sans")
    }
}

/// Shaping must not change how plain Latin text looked: the width of the unshaped renderer
/// (FreeType's hinted advances, glyph by glyph) is kept, as HarfBuzz takes the same advances.
@Suite struct LatinWidthTests {
    static let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

    /// Widths the glyph-by-glyph renderer of 52d404c gave (the same algorithm in C against
    /// FreeType on this font, 2026-11-24).
    @Test(arguments: [("12:34", 32, 91), ("10:00:01", 24, 106), ("Sunday 24 November 08:15", 40, 559), ("Hello 12345", 28, 170)])
    func latinLinesWithoutKerningPairsKeepTheirWidth(_ text: String, _ size: Int, _ before: Int) throws {
        let face = try FontFace(path: Self.dejaVu)
        #expect(face.render(text, pixelSize: size).mask.width == before, "\(text) at \(size) px")
    }

    /// Kerning (GPOS in DejaVu Sans) is the one change: "AV", "AT", "To", "Wo" close up.
    @Test func kerningPairsCloseUp() throws {
        let face = try FontFace(path: Self.dejaVu)
        #expect(face.render("AVATAR Today", pixelSize: 28).mask.width < 207, "207 px unshaped")
        #expect(face.render("Hello, World", pixelSize: 28).mask.width < 172, "172 px unshaped")
    }
}
