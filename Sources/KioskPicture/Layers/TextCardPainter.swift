/// Draws a text card (`text:` of an override, #35) over a whole buffer: its background, then
/// its words centred, in lines broken at "\n" and wrapped at spaces to fit 90 % of the width.
/// Without a set size the font is the largest, up to 12 % of the screen's height, at which
/// every line fits the width and all of them 90 % of the height: a three-word alert is large,
/// a paragraph smaller, and neither runs off the screen. Text of the scripts written without
/// spaces (Chinese, Japanese, Thai...) breaks between characters at any size; another word too
/// long for the width (a URL) is broken so only at the smallest size. The card is opaque: the
/// background's own opacity is not used.
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
            // Never past the screen's height: a glyph cache at 10,000 px would cost a small box
            // its memory.
            let pixelSize = min(max(1, size.pixels(of: screen.height)), max(1, screen.height))
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

    /// `text`'s lines at `pixelSize`, each paragraph wrapped greedily at spaces to `width`; a
    /// word wider than that (Chinese, Japanese and Thai have no spaces; a URL) is broken between
    /// characters. `fits` is false when that broke a word of a script written with spaces, or
    /// a single character is wider than `width`.
    static func wrapped(_ text: String, width: Int, pixelSize: Int,
                        rasterizer: TextRasterizer) -> (lines: [RenderedText], fits: Bool) {
        var lines: [RenderedText] = []
        var fits = true
        for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let words = paragraph.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard !words.isEmpty else {
                lines.append(rasterizer.render(" ", pixelSize: pixelSize))
                continue
            }
            var current: String? = nil
            var rendered = rasterizer.render(" ", pixelSize: pixelSize)
            for word in words {
                if let line = current {
                    let longer = rasterizer.render(line + " " + word, pixelSize: pixelSize)
                    if longer.mask.width <= width {
                        current = line + " " + word
                        rendered = longer
                        continue
                    }
                    lines.append(rendered)
                }
                var alone = rasterizer.render(word, pixelSize: pixelSize)
                var rest = Substring(word)
                while alone.mask.width > width, rest.count > 1 {
                    if !writtenWithoutSpaces(rest) { fits = false }
                    let (head, headRendered) = longestFitting(rest, width: width, pixelSize: pixelSize, rasterizer: rasterizer)
                    if headRendered.mask.width > width { fits = false }
                    lines.append(headRendered)
                    rest = rest.dropFirst(head.count)
                    alone = rasterizer.render(String(rest), pixelSize: pixelSize)
                }
                if alone.mask.width > width { fits = false }
                current = String(rest)
                rendered = alone
            }
            lines.append(rendered)
        }
        return (lines, fits)
    }

    /// Whether `word` starts in a script written without spaces between words, whose lines
    /// break between characters: Thai, Lao, Myanmar, Khmer, kana, CJK ideographs.
    static func writtenWithoutSpaces(_ word: Substring) -> Bool {
        guard let scalar = word.unicodeScalars.first?.value else { return false }
        let ranges: [ClosedRange<UInt32>] = [0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x3000...0x30FF,
                                             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF00...0xFFEF,
                                             0x20000...0x3FFFF]
        return ranges.contains { $0.contains(scalar) }
    }

    /// The longest start of `word` (one character at least) no wider than `width`, found by
    /// halving: a 200-character word costs 8 renders, not 200.
    private static func longestFitting(_ word: Substring, width: Int, pixelSize: Int,
                                       rasterizer: TextRasterizer) -> (Substring, RenderedText) {
        var low = 1, high = word.count - 1
        var best = (word.prefix(1), rasterizer.render(String(word.prefix(1)), pixelSize: pixelSize))
        while low <= high {
            let middle = (low + high) / 2
            let head = word.prefix(middle)
            let rendered = rasterizer.render(String(head), pixelSize: pixelSize)
            if rendered.mask.width <= width {
                best = (head, rendered)
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
