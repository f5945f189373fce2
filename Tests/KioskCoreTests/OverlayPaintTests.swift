import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A zeroed XRGB8888 buffer with row padding, owned by the test.
final class Canvas {
    let memory: UnsafeMutableRawPointer
    let buffer: PixelBuffer

    init(_ size: PixelSize, color: UInt32 = 0x000000) {
        let stride = (size.width * 4 + 63) / 64 * 64
        memory = UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: stride * size.height)
        buffer = PixelBuffer(base: memory, size: size, stride: stride, index: 0)
        buffer.fill(PixelRect(size: size), color: color)
    }

    deinit { memory.deallocate() }
}

/// Text as solid boxes, 0.6 em wide a character: enough to place and measure labels.
final class BoxRasterizer: TextRasterizer {
    func render(_ text: String, pixelSize: Int) -> RenderedText {
        let width = text.count * pixelSize * 6 / 10, height = pixelSize * 5 / 4
        return RenderedText(mask: AlphaMask(width: width, height: height, pixels: [UInt8](repeating: 255, count: width * height)),
                            ascent: pixelSize)
    }
}

@Suite struct OverlayBlendTests {
    @Test func blendMixesByCoverageAndOpacity() {
        let canvas = Canvas(PixelSize(width: 4, height: 2), color: 0x000000)
        canvas.buffer.blend(AlphaMask(width: 2, height: 1, pixels: [255, 128]), at: (x: 1, y: 0), color: 0xFFFFFF)
        #expect(canvas.buffer.pixel(x: 0, y: 0) == 0)
        #expect(canvas.buffer.pixel(x: 1, y: 0) == 0xFFFFFF)
        #expect(canvas.buffer.pixel(x: 2, y: 0) == 0x808080)
        canvas.buffer.blendFill(PixelRect(x: 0, y: 1, width: 4, height: 1), color: 0xFF0000, opacity: 64)
        #expect(canvas.buffer.pixel(x: 3, y: 1) == 0x400000)
    }

    @Test func cutsWhatFallsOffTheScreen() {
        let canvas = Canvas(PixelSize(width: 3, height: 3))
        canvas.buffer.blendFill(PixelRect(x: -5, y: 2, width: 100, height: 100), color: 0x00FF00)
        #expect(canvas.buffer.pixel(x: 0, y: 2) == 0x00FF00 && canvas.buffer.pixel(x: 2, y: 2) == 0x00FF00)
        #expect(canvas.buffer.pixel(x: 0, y: 1) == 0)
    }

    /// A panel 4 wide, 2 high: the viewer's top-left pixel, turned with the picture, lands in
    /// the same corner as the scaler puts the picture's top-left (Rotation.map).
    @Test(arguments: Rotation.allCases)
    func viewerCoordinatesTurnWithTheDisplay(rotation: Rotation) {
        let panel = PixelSize(width: 4, height: 2)
        let canvas = Canvas(panel)
        canvas.buffer.blendFill(PixelRect(x: 0, y: 0, width: 1, height: 1), color: 0xFFFFFF, rotation: rotation)
        let viewer = OverlayLayout.viewerSize(buffer: panel, rotation: rotation)
        let expected = rotation.map(PixelRect(x: 0, y: 0, width: 1, height: 1), in: viewer)
        #expect(canvas.buffer.pixel(x: expected.x, y: expected.y) == 0xFFFFFF)
        #expect(canvas.buffer.viewerPixel(x: 0, y: 0, rotation: rotation) == 0xFFFFFF)
        #expect(canvas.buffer.viewerPixel(x: viewer.width - 1, y: viewer.height - 1, rotation: rotation) == 0)
    }
}

@Suite struct OverlayPainterTests {
    static let content = OverlayContent(center: .play, title: "Clip", elapsed: "00:30", total: "02:00", fraction: 0.25)

    /// The bar's row as the viewer sees it: how many pixels are fill, how many track.
    static func barPixels(_ buffer: PixelBuffer, rotation: Rotation, row: Int, width: Int) -> (fill: Int, track: Int) {
        var fill = 0, track = 0
        for x in 0..<width {
            switch buffer.viewerPixel(x: x, y: row, rotation: rotation) {
            case OverlayPainter.barFillColor: fill += 1
            case OverlayPainter.barTrackColor: track += 1
            default: break
            }
        }
        return (fill, track)
    }

    @Test(arguments: Rotation.allCases)
    func barAtTheViewersBottomFilledByTheFraction(rotation: Rotation) {
        let panel = PixelSize(width: 640, height: 360)
        let canvas = Canvas(panel, color: 0x336699)
        let painter = OverlayPainter(rasterizer: BoxRasterizer())
        painter.paint(Self.content, into: canvas.buffer, rotation: rotation)
        let layout = OverlayLayout(screen: OverlayLayout.viewerSize(buffer: panel, rotation: rotation))
        let bar = Self.barPixels(canvas.buffer, rotation: rotation, row: layout.bar.y + layout.bar.height / 2,
                                 width: layout.screen.width)
        #expect(bar.fill + bar.track == layout.bar.width)
        #expect(bar.fill == layout.fill(fraction: 0.25).width)
        // Above the scrim the picture is untouched; inside it, darkened.
        #expect(canvas.buffer.viewerPixel(x: 5, y: layout.bottomScrim.y - 1, rotation: rotation) == 0x336699)
        #expect(canvas.buffer.viewerPixel(x: 5, y: layout.bottomScrim.y + 1, rotation: rotation) == 0x19334C, "half dark: 0x336699 at 127/255")
        // The play triangle is white at the glyph's center.
        #expect(canvas.buffer.viewerPixel(x: layout.glyph.x + layout.glyph.width / 2,
                                          y: layout.glyph.y + layout.glyph.height / 2, rotation: rotation) == 0xFFFFFF)
    }

    @Test func aLongTitleIsCutToTheScreen() {
        let canvas = Canvas(PixelSize(width: 320, height: 240))
        let painter = OverlayPainter(rasterizer: BoxRasterizer())
        var content = Self.content
        content.title = String(repeating: "T", count: 100)
        painter.paint(content, into: canvas.buffer, rotation: .none)
        let layout = OverlayLayout(screen: PixelSize(width: 320, height: 240))
        let row = layout.titleBaseline - 2
        let lit = (0..<320).filter { canvas.buffer.pixel(x: $0, y: row) == OverlayPainter.textColor }
        #expect(lit.first == layout.margin)
        #expect(lit.count > 200 && (lit.last ?? 320) < 320 - layout.margin, "cut, with an ellipsis, inside the margins")
    }

    @Test func idleScreenIsBlackWithOneCenteredLine() {
        let canvas = Canvas(PixelSize(width: 320, height: 240), color: 0xFF0000)
        let painter = OverlayPainter(rasterizer: BoxRasterizer())
        painter.paintIdle(reason: "No playable item", into: canvas.buffer, rotation: .none)
        #expect(canvas.buffer.pixel(x: 0, y: 0) == 0)
        #expect(canvas.buffer.pixel(x: 160, y: 120) == OverlayPainter.idleTextColor)
        // Too long for the screen: set smaller, still all on it.
        painter.paintIdle(reason: String(repeating: "x", count: 60), into: canvas.buffer, rotation: .none)
        #expect(canvas.buffer.pixel(x: 0, y: 120) == 0 && canvas.buffer.pixel(x: 319, y: 120) == 0)
        #expect(canvas.buffer.pixel(x: 160, y: 120) == OverlayPainter.idleTextColor)
    }

    @Test func shapesAreWhereExpected() {
        let play = OverlayShapes.play(side: 40), pause = OverlayShapes.pause(side: 40)
        #expect(play[20, 20] == 255 && play[2, 20] == 0 && play[38, 2] == 0)
        #expect(pause[12, 20] == 255 && pause[20, 20] == 0 && pause[28, 20] == 255)
        let first = OverlayShapes.spinner(side: 40, phase: 0), next = OverlayShapes.spinner(side: 40, phase: 1)
        #expect(first != next, "the spinner turns")
        #expect(first[20, 20] == 0 && first[20, 6] == 255, "the leading dot at the top, none in the middle")
    }
}
