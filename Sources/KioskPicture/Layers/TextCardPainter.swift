/// Draws a text card (`text:` of an override, #35) over a whole buffer: its background, then
/// its words centred, in lines broken at "\n" and wrapped at spaces to fit 90 % of the width.
/// Without a set size the font is the largest, up to 12 % of the screen's height, at which
/// every line fits the width and all of them 90 % of the height: a three-word alert is large,
/// a paragraph smaller, and neither runs off the screen. A word too long for the width at the
/// smallest size is cut at the edge rather than shrunk to nothing.
public enum TextCardPainter {
    /// The largest font tried, as a share of the screen's height.
    static let largestShare = 0.12
    /// Never smaller than this (pixels): below it nobody reads a screen across a room.
    static let smallestPixelSize = 12
    /// Lines are this many font sizes apart.
    static let lineSpacing = 1.25

    public static func paint(text: String, color: LayerColor, background: LayerColor, size: LayerLength?,
                             into buffer: PixelBuffer, rasterizer: TextRasterizer) {
        buffer.fill(PixelRect(size: buffer.size), color: background.rgb)
        let layout = layout(text, screen: buffer.size, size: size, rasterizer: rasterizer)
        let lineHeight = Int((Double(layout.pixelSize) * lineSpacing).rounded())
        var y = (buffer.size.height - lineHeight * layout.lines.count) / 2
        for line in layout.lines {
            let x = (buffer.size.width - line.mask.width) / 2
            // The mask's baseline sits where a line of this height puts it: the lines' glyphs
            // line up whatever their ascent.
            let baseline = y + (lineHeight + layout.pixelSize * 3 / 4) / 2
            buffer.blend(line, at: (x, baseline - line.ascent), color: color.rgb, opacity: color.alpha)
            y += lineHeight
        }
    }

    /// The font size and the rendered lines for `screen`: `size` when set, else the largest
    /// that fits (see the type's comment).
    static func layout(_ text: String, screen: PixelSize, size: LayerLength?,
                       rasterizer: TextRasterizer) -> (pixelSize: Int, lines: [RenderedText]) {
        let width = screen.width * 9 / 10, height = screen.height * 9 / 10
        if let size {
            let pixelSize = max(1, size.pixels(of: screen.height))
            return (pixelSize, wrapped(text, width: width, pixelSize: pixelSize, rasterizer: rasterizer).lines)
        }
        var pixelSize = max(smallestPixelSize, Int(Double(screen.height) * largestShare))
        while true {
            let (lines, fits) = wrapped(text, width: width, pixelSize: pixelSize, rasterizer: rasterizer)
            let tall = Int((Double(pixelSize) * lineSpacing).rounded()) * lines.count
            if (fits && tall <= height) || pixelSize <= smallestPixelSize { return (pixelSize, lines) }
            pixelSize = max(smallestPixelSize, pixelSize * 85 / 100)
        }
    }

    /// `text`'s lines at `pixelSize`, each paragraph wrapped greedily at spaces to `width`;
    /// `fits` is false when a single word is wider than that.
    static func wrapped(_ text: String, width: Int, pixelSize: Int,
                        rasterizer: TextRasterizer) -> (lines: [RenderedText], fits: Bool) {
        var lines: [RenderedText] = []
        var fits = true
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = paragraph.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard !words.isEmpty else {
                lines.append(rasterizer.render(" ", pixelSize: pixelSize))
                continue
            }
            var current = words[0]
            var rendered = rasterizer.render(current, pixelSize: pixelSize)
            for word in words.dropFirst() {
                let longer = rasterizer.render(current + " " + word, pixelSize: pixelSize)
                if longer.mask.width <= width {
                    current += " " + word
                    rendered = longer
                } else {
                    if rendered.mask.width > width { fits = false }
                    lines.append(rendered)
                    current = word
                    rendered = rasterizer.render(word, pixelSize: pixelSize)
                }
            }
            if rendered.mask.width > width { fits = false }
            lines.append(rendered)
        }
        return (lines, fits)
    }
}
