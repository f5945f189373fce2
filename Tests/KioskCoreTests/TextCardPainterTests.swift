import Testing
@testable import KioskBasics
@testable import KioskPicture

/// A text card's layout and paint (`TextCardPainter`), with text as boxes 0.6 em wide a
/// character (`BoxRasterizer`), so sizes and places are known exactly.
@Suite struct TextCardPainterTests {
    let screen = PixelSize(width: 1000, height: 500)

    @Test func aShortTextIsAsLargeAsTheCardAllowsOnOneLine() {
        let layout = TextCardPainter.layout("Exit east", screen: screen, size: nil, rasterizer: BoxRasterizer())
        #expect(layout.pixelSize == 60, "12 % of 500 px")
        #expect(layout.lines.map(\.mask.width) == [9 * 36])
    }

    @Test func aLongTextWrapsAtSpacesAndShrinksUntilItFits() {
        let words = Array(repeating: "word", count: 60).joined(separator: " ")
        let layout = TextCardPainter.layout(words, screen: screen, size: nil, rasterizer: BoxRasterizer())
        #expect(layout.pixelSize < 60 && layout.pixelSize >= TextCardPainter.smallestPixelSize)
        #expect(layout.lines.count > 1)
        #expect(layout.lines.allSatisfy { $0.mask.width <= 900 }, "every line within 90 % of the width")
        let tall = Int((Double(layout.pixelSize) * TextCardPainter.lineSpacing).rounded()) * layout.lines.count
        #expect(tall <= 450, "all lines within 90 % of the height")
        // The largest such size: one step larger (85 %) would not fit.
        let larger = layout.pixelSize * 100 / 85 + 1
        let (lines, fits) = TextCardPainter.wrapped(words, width: 900, pixelSize: larger, rasterizer: BoxRasterizer())
        #expect(!fits || Int((Double(larger) * TextCardPainter.lineSpacing).rounded()) * lines.count > 450)
    }

    @Test func lineBreaksAreKeptAndASetSizeIsTaken() {
        let layout = TextCardPainter.layout("Fire\n\nLeave now", screen: screen, size: .pixels(20), rasterizer: BoxRasterizer())
        #expect(layout.pixelSize == 20)
        #expect(layout.lines.map(\.mask.width) == [4 * 12, 1 * 12, 9 * 12], "an empty line is a space's height")
        let percent = TextCardPainter.layout("Fire", screen: screen, size: .percent(10), rasterizer: BoxRasterizer())
        #expect(percent.pixelSize == 50)
    }

    @Test func aWordWiderThanTheScreenStopsAtTheSmallestSize() {
        let word = String(repeating: "W", count: 200)
        let layout = TextCardPainter.layout(word, screen: screen, size: nil, rasterizer: BoxRasterizer())
        // Broken between characters there: 125 of 7.2 px to a 900 px line.
        #expect(layout.pixelSize == TextCardPainter.smallestPixelSize && layout.lines.count == 2)
    }

    @Test func thePaintIsTheBackgroundWithTheWordsCentred() {
        let canvas = Canvas(screen, color: 0x123456)
        TextCardPainter.paint(text: "Exit", color: LayerColor(rgb: 0xFFFFFF), background: LayerColor(rgb: 0xC00000),
                              size: nil, into: canvas.buffer, rasterizer: BoxRasterizer())
        let buffer = canvas.buffer
        #expect(buffer.pixel(x: 0, y: 0) & 0xFFFFFF == 0xC00000 && buffer.pixel(x: 999, y: 499) & 0xFFFFFF == 0xC00000)
        // "Exit" at 60 px: a 144x75 box; centred across, its baseline near the middle.
        var covered: [(Int, Int)] = []
        for y in 0..<500 { for x in 0..<1000 where buffer.pixel(x: x, y: y) & 0xFFFFFF == 0xFFFFFF { covered.append((x, y)) } }
        #expect(covered.count == 144 * 75)
        let xs = covered.map(\.0), ys = covered.map(\.1)
        #expect(xs.min() == (1000 - 144) / 2 && xs.max() == (1000 - 144) / 2 + 143)
        let middle = (ys.min()! + ys.max()!) / 2
        #expect(abs(middle - 250) <= 60 / 4, "the line sits in the middle (\(middle))")
    }
}

extension TextCardPainterTests {
    @Test func textWithoutSpacesBreaksBetweenCharactersAtTheLargestSize() {
        // 30 ideographs at 60 px (36 px each in boxes): 1080 px, over the 900 the card allows.
        let chinese = String(repeating: "疏", count: 30)
        let layout = TextCardPainter.layout(chinese, screen: screen, size: nil, rasterizer: BoxRasterizer())
        #expect(layout.pixelSize == 60, "not shrunk: such text breaks anywhere")
        #expect(layout.lines.map(\.mask.width) == [25 * 36, 5 * 36])
    }

    @Test func aLongLatinWordShrinksFirstAndBreaksOnlyAtTheSmallestSize() {
        let url = "https://example.com/" + String(repeating: "x", count: 180)   // 200 characters
        let layout = TextCardPainter.layout(url, screen: screen, size: nil, rasterizer: BoxRasterizer())
        #expect(layout.pixelSize == TextCardPainter.smallestPixelSize)
        // 7.2 px a character at 12 px: 125 to a 900 px line.
        #expect(layout.lines.map(\.mask.width) == [125 * 12 * 6 / 10, 75 * 12 * 6 / 10])
        #expect(layout.lines.allSatisfy { $0.mask.width <= 900 })
    }

    @Test func anyLineBreakBreaksALineAndASetSizeStaysWithinTheScreen() {
        let layout = TextCardPainter.layout("F\r\nL", screen: screen, size: .pixels(10_000), rasterizer: BoxRasterizer())
        #expect(layout.lines.count == 2 && layout.pixelSize == 500)
    }
}
