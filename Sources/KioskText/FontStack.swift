import KioskCore

/// The fonts a line is drawn with, in order: the configured one first, then fallbacks for the
/// characters it lacks (DejaVu Sans has Latin, Greek, Cyrillic, Arabic and Hebrew but no CJK;
/// Noto fills in where installed). What the kiosk's overlay and layers draw through.
/// Not thread-safe, like its faces: one owner, the presenter thread.
public final class FontStack: TextRasterizer {
    public let faces: [FontFace]
    /// Fonts of the configured list that could not be used, one line each for the log; the
    /// others are used.
    public let problems: [FontError]

    public init(faces: [FontFace], problems: [FontError] = []) {
        precondition(!faces.isEmpty, "a font stack has at least one face")
        self.faces = faces; self.problems = problems
    }

    /// The first (configured) font's file and family.
    public var path: String { faces[0].path }
    public var familyName: String { faces[0].familyName }

    public func render(_ text: String, pixelSize: Int) -> RenderedText {
        shape(text, pixelSize: pixelSize).rasterize()
    }

    /// The glyphs and positions `render` draws (tests compare them with `hb-shape`).
    public func shape(_ text: String, pixelSize: Int) -> ShapedLine {
        ShapedLine(text, faces: faces, pixelSize: pixelSize)
    }
}
