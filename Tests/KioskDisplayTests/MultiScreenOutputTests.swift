import Testing
@testable import KioskCore
@testable import KioskDisplay

/// One picture on several screens, on headless screens: what each shows after a present.
@Suite("Several screens: mirror and span outputs")
struct MultiScreenOutputTests {
    /// A canvas whose pixel at (x, y) is x + 4096 y: every column and row tells where it came from.
    private func present(on output: MultiScreenOutput) throws {
        let canvas = try output.backBuffer()
        for y in 0..<canvas.size.height {
            for x in 0..<canvas.size.width {
                canvas.base.storeBytes(of: UInt32(x + 4096 * y), toByteOffset: y * canvas.stride + x * 4, as: UInt32.self)
            }
        }
        _ = try output.present(canvas)
    }

    private func screen(_ width: Int, _ height: Int, rotation: Rotation = .none) -> HeadlessDisplay {
        HeadlessDisplay(size: PixelSize(width: width, height: height), paced: false, rotation: rotation)
    }

    @Test func aMirrorShowsTheSamePictureOnEqualScreens() throws {
        let screens = [screen(64, 36), screen(64, 36)]
        let output = MultiScreenOutput(mirroring: screens, names: ["a", "b"])
        #expect(output.size == PixelSize(width: 64, height: 36))
        try present(on: output)
        let (a, b) = (try #require(screens[0].frontBuffer), try #require(screens[1].frontBuffer))
        for (x, y) in [(0, 0), (63, 0), (31, 17), (63, 35)] {
            #expect(a.pixel(x: x, y: y) == UInt32(x + 4096 * y))
            #expect(b.pixel(x: x, y: y) == a.pixel(x: x, y: y))
        }
    }

    @Test func aMirrorFitsTheCanvasToAScreenOfAnotherShape() throws {
        let screens = [screen(64, 36), screen(64, 48)]
        let output = MultiScreenOutput(mirroring: screens, names: ["a", "b"])
        try present(on: output)
        let b = try #require(screens[1].frontBuffer)
        #expect(b.pixel(x: 10, y: 2) == 0)             // the bar above: (48 - 36) / 2 rows
        #expect(b.pixel(x: 0, y: 6) == 0)              // the canvas' top-left, unscaled width
        #expect(b.pixel(x: 63, y: 41) == UInt32(63 + 4096 * 35))
        #expect(b.pixel(x: 10, y: 45) == 0)            // the bar below
    }

    @Test func aSpanCutsTheCanvasAndTheSeamContinuesAcrossTheBezel() throws {
        let screens = [screen(64, 36), screen(64, 36)]
        let output = try #require(MultiScreenOutput(spanning: screens, names: ["left", "right"],
                                                    grid: GridSize(columns: 2, rows: 1), bezel: 8))
        #expect(output.size == PixelSize(width: 136, height: 36))
        try present(on: output)
        let (left, right) = (try #require(screens[0].frontBuffer), try #require(screens[1].frontBuffer))
        for y in [0, 20, 35] {
            #expect(left.pixel(x: 63, y: y) == UInt32(63 + 4096 * y))
            #expect(right.pixel(x: 0, y: y) == UInt32(63 + 8 + 1 + 4096 * y))
        }
    }

    @Test func aSpanOnATurnedScreenTurnsItsTile() throws {
        // A portrait panel (buffers 36x64 as the panel scans out, turned 90 by the copy):
        // upright 64x36... the tile is the upright size, the buffer the panel's.
        let screens = [screen(36, 64, rotation: .clockwise90)]
        let output = try #require(MultiScreenOutput(spanning: screens, names: ["tall"], grid: GridSize(columns: 1, rows: 1), bezel: 0))
        #expect(output.size == PixelSize(width: 64, height: 36))
        try present(on: output)
        let panel = try #require(screens[0].frontBuffer)
        // Turned clockwise: the canvas' top-left lands at the panel's top-right.
        #expect(panel.pixel(x: 35, y: 0) == 0)
        #expect(panel.pixel(x: 0, y: 0) == UInt32(4096 * 35))
    }
}
