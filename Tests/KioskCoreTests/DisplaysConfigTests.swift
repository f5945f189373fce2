import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// kiosk.conf's `displays:` (several screens): every form, and each bad value at its line:column.
@Suite("Several screens: displays config")
struct DisplaysConfigTests {
    private func parse(_ yaml: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: []))
    }

    @Test func absentIsTheSingleDisplay() throws {
        let config = try parse("display:\n  output: headless\nitems: [a.mp4]\n")
        #expect(config.displays == nil)
        #expect(config.display.output == .headless)
    }

    @Test func separateScreensEachWithTheirPlaylist() throws {
        let config = try parse("""
            displays:
              layout: separate
              audio_from: right
              outputs:
                - name: left
                  card: /dev/dri/card0
                  connector: HDMI-A-1
                  mode: 1920x1080@60
                  rotation: 90
                  gravity: fill
                  items: [a.mp4, b.mp4]
                - name: right
                  output: headless
                  headless_size: 640x360
                  items: [c.mp4]
            """)
        let displays = try #require(config.displays)
        #expect(displays.layout == .separate)
        #expect(displays.outputs.map(\.name) == ["left", "right"])
        #expect(displays.audioFrom == "right" && displays.audioOutputIndex == 1)
        let left = displays.outputs[0]
        #expect(left.display.card == .path("/dev/dri/card0"))
        #expect(left.display.connector == .named("HDMI-A-1"))
        #expect(left.display.mode == .exactly(ModeRequest(parsing: "1920x1080@60")!))
        #expect(left.display.rotation == .clockwise90)
        #expect(left.gravity == .fill)
        #expect(left.items.count == 2)
        #expect(displays.outputs[1].display.output == .headless)
        #expect(displays.outputs[1].display.headlessSize == PixelSize(width: 640, height: 360))
        #expect(config.items.isEmpty)   // no top-level playlist needed
        let screen = config.separateScreen(0)
        #expect(screen.displays == nil && screen.items.count == 2 && screen.playback.gravity == .fill)
        #expect(screen.display.rotation == .clockwise90)
    }

    @Test func aBareListIsSeparateAndAnOutputWithoutItemsPlaysTheTopLevelOnes() throws {
        let config = try parse("""
            displays:
              - {output: headless, items: [a.mp4]}
              - {output: headless}
            items: [b.mp4]
            """)
        let displays = try #require(config.displays)
        #expect(displays.layout == .separate)
        #expect(displays.outputs.map(\.name) == ["display-1", "display-2"])
        #expect(displays.audioOutputIndex == 0)
        #expect(config.separateScreen(1).items.map(\.source) == config.items.map(\.source))
    }

    @Test func anEntryMayBeWrittenAsDisplayText() throws {
        let config = try parse("displays:\n  - headless:640x360@30\n  - drm:card1:HDMI-A-2:1920x1080\nitems: [a.mp4]\n")
        let outputs = try #require(config.displays?.outputs)
        #expect(outputs.map(\.target) == [.headless(PixelSize(width: 640, height: 360), refreshRate: 30),
                                          .drm(card: "/dev/dri/card1", connector: "HDMI-A-2", mode: ModeRequest(parsing: "1920x1080"))])
        #expect(outputs.map(\.name) == ["display-1", "display-2"])
        #expect(outputs.allSatisfy { $0.items.isEmpty })
    }

    @Test func mirrorAndSpan() throws {
        let mirror = try parse("displays:\n  layout: mirror\n  outputs: [{connector: Virtual-1}, {connector: Virtual-2}]\nitems: [a.mp4]\n")
        #expect(mirror.displays?.layout == .mirror)
        #expect(mirror.displays?.outputs.map(\.display.connector) == [.named("Virtual-1"), .named("Virtual-2")])
        let span = try parse("displays:\n  layout: span\n  grid: 2x1\n  bezel: 40\n  outputs: [{}, {}]\nitems: [a.mp4]\n")
        #expect(span.displays?.grid == GridSize(columns: 2, rows: 1))
        #expect(span.displays?.bezel == 40)
        let defaulted = try parse("displays:\n  layout: span\n  outputs: [{}, {}, {}]\nitems: [a.mp4]\n")
        #expect(defaulted.displays?.grid == GridSize(columns: 3, rows: 1))
        #expect(defaulted.displays?.bezel == 0)
    }

    @Test func aChangedSpanWaitsForARestart() throws {
        let old = try parse("displays:\n  layout: span\n  outputs: [{}, {}]\nitems: [a.mp4]\n")
        let new = try parse("displays:\n  layout: span\n  bezel: 40\n  outputs: [{}, {}]\nitems: [a.mp4]\n")
        let changes = ConfigChanges(from: old.primaryScreen, to: new.primaryScreen)
        #expect(changes.parts == [.display] && changes.waitingForRestart == [.display])
    }

    /// The annotated kiosk.conf shows the section commented out (one display is the default);
    /// taken in, it reads as it says.
    @Test func theExamplesCommentedSectionParses() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let lines = try String(contentsOf: root.appendingPathComponent("kiosk.conf"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "# displays:"))
        let section = lines[start...].prefix { $0.hasPrefix("#") }.map { $0.dropFirst(2) }.joined(separator: "\n")
        let displays = try #require(try parse(section + "\n").displays)
        #expect(displays.layout == .separate && displays.audioFrom == "left")
        #expect(displays.outputs.map(\.name) == ["left", "right"])
        #expect(displays.outputs.map(\.display.connector) == [.named("HDMI-A-1"), .named("HDMI-A-2")])
        #expect(displays.outputs.allSatisfy { $0.items.count == 1 })
    }

}

private let items = "items: [a.mp4]\n"

/// Checked with the other config errors (ConfigErrorTests): one diagnostic each, at its place.
let displaysConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "unknown layout", yaml: "displays:\n  layout: wall\n  outputs: [{}]\n" + items, line: 2, column: 11,
                    fragment: "'layout' in displays is the string 'wall'; expected one of: separate, mirror, span"),
    ConfigErrorCase(name: "no outputs", yaml: "displays:\n  layout: mirror\n" + items, line: 2, column: 3,
                    fragment: "displays has no 'outputs'"),
    ConfigErrorCase(name: "outputs not a list", yaml: "displays:\n  outputs: left\n" + items, line: 2, column: 12,
                    fragment: "'outputs' in displays is the string 'left'; expected a list of screens"),
    ConfigErrorCase(name: "typo in an output", yaml: "displays:\n  outputs:\n    - {conector: HDMI-A-1}\n" + items,
                    line: 3, column: 8, fragment: "unknown key 'conector' in displays.outputs[1]; expected one of: name, output, card, connector, mode, rotation, headless_size, video_plane, gravity, items (did you mean 'connector'?)"),
    ConfigErrorCase(name: "display text that does not parse", yaml: "displays:\n  - headless:big\n" + items, line: 2, column: 5,
                    fragment: "displays.outputs[1] is 'headless:big'; expected a map of name, output, card"),
    ConfigErrorCase(name: "bad mode in an output", yaml: "displays:\n  - {mode: big}\n" + items, line: 2, column: 12,
                    fragment: "'mode' in displays.outputs[1] is 'big'; expected preferred, WxH or WxH@HZ"),
    ConfigErrorCase(name: "bad rotation in an output", yaml: "displays:\n  - {}\n  - {rotation: 45}\n" + items, line: 3, column: 16,
                    fragment: "'rotation' in displays.outputs[2] is 45; expected one of: 0, 90, 180, 270"),
    ConfigErrorCase(name: "name twice", yaml: "displays:\n  - {name: a}\n  - {name: a}\n" + items, line: 3, column: 12,
                    fragment: "the name 'a' in displays.outputs[2] is already used at 2:12"),
    ConfigErrorCase(name: "items in a mirror", yaml: "displays:\n  layout: mirror\n  outputs:\n    - {items: [b.mp4]}\n" + items,
                    line: 4, column: 8, fragment: "'items' in displays.outputs[1] is for layout separate"),
    ConfigErrorCase(name: "empty items of an output", yaml: "displays:\n  - {items: []}\n" + items, line: 2, column: 13,
                    fragment: "'displays.outputs[1].items' is an empty list"),
    ConfigErrorCase(name: "audio_from names no output", yaml: "displays:\n  audio_from: rigth\n  outputs: [{name: left}, {name: right}]\n" + items,
                    line: 2, column: 15, fragment: "'audio_from' in displays is 'rigth'; expected the name of an output: left, right"),
    ConfigErrorCase(name: "audio_from in a span", yaml: "displays:\n  layout: span\n  audio_from: a\n  outputs: [{name: a}]\n" + items,
                    line: 3, column: 15, fragment: "'audio_from' in displays is for layout separate"),
    ConfigErrorCase(name: "grid outside a span", yaml: "displays:\n  layout: mirror\n  grid: 2x1\n  outputs: [{}, {}]\n" + items,
                    line: 3, column: 3, fragment: "'grid' in displays is for layout span"),
    ConfigErrorCase(name: "grid that does not parse", yaml: "displays:\n  layout: span\n  grid: two\n  outputs: [{}, {}]\n" + items,
                    line: 3, column: 9, fragment: "'grid' in displays is 'two'; expected columns x rows like 2x1"),
    ConfigErrorCase(name: "grid of the wrong count", yaml: "displays:\n  layout: span\n  grid: 2x2\n  outputs: [{}, {}]\n" + items,
                    line: 3, column: 9, fragment: "'grid' in displays is 2x2 (4 screens) but there are 2 outputs"),
    ConfigErrorCase(name: "negative bezel", yaml: "displays:\n  layout: span\n  bezel: -4\n  outputs: [{}, {}]\n" + items,
                    line: 3, column: 10, fragment: "'bezel' in displays is -4; expected a whole number from 0 to 10000"),
    ConfigErrorCase(name: "display and displays", yaml: "display:\n  output: headless\ndisplays:\n  - {}\n" + items,
                    line: 1, column: 1, fragment: "'display' and 'displays' are both set"),
    ConfigErrorCase(name: "separate screen without a playlist", yaml: "displays:\n  - {items: [a.mp4]}\n  - {}\n",
                    line: 1, column: 1, fragment: "no items: there is no 'items' list"),
]

/// Span rectangles and mirror fits: each screen's part of the canvas and where it lands.
@Suite("Several screens: span and mirror geometry")
struct SpanLayoutTests {
    struct SpanCase: Sendable, CustomStringConvertible {
        let name: String
        let grid: GridSize
        let screens: [PixelSize]
        let bezel: Int
        let canvas: PixelSize
        let tiles: [PixelRect]
        var description: String { name }
    }

    static let hd = PixelSize(width: 640, height: 360)
    static let cases: [SpanCase] = [
        SpanCase(name: "2x1 no bezel", grid: GridSize(columns: 2, rows: 1), screens: [hd, hd], bezel: 0,
                 canvas: PixelSize(width: 1280, height: 360),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 640, height: 360)]),
        SpanCase(name: "2x1 bezel 40", grid: GridSize(columns: 2, rows: 1), screens: [hd, hd], bezel: 40,
                 canvas: PixelSize(width: 1320, height: 360),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 680, y: 0, width: 640, height: 360)]),
        SpanCase(name: "1x2 bezel 20", grid: GridSize(columns: 1, rows: 2), screens: [hd, hd], bezel: 20,
                 canvas: PixelSize(width: 640, height: 740),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 0, y: 380, width: 640, height: 360)]),
        SpanCase(name: "2x2 bezel 10", grid: GridSize(columns: 2, rows: 2), screens: [hd, hd, hd, hd], bezel: 10,
                 canvas: PixelSize(width: 1290, height: 730),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 650, y: 0, width: 640, height: 360),
                         PixelRect(x: 0, y: 370, width: 640, height: 360), PixelRect(x: 650, y: 370, width: 640, height: 360)]),
        SpanCase(name: "2x2 no bezel", grid: GridSize(columns: 2, rows: 2), screens: [hd, hd, hd, hd], bezel: 0,
                 canvas: PixelSize(width: 1280, height: 720),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 640, height: 360),
                         PixelRect(x: 0, y: 360, width: 640, height: 360), PixelRect(x: 640, y: 360, width: 640, height: 360)]),
        // Two portrait panels (modes 640x360 turned 90): upright 360x640 each.
        SpanCase(name: "2x1 turned 90, bezel 40", grid: GridSize(columns: 2, rows: 1), screens: [hd.transposed, hd.transposed],
                 bezel: 40, canvas: PixelSize(width: 760, height: 640),
                 tiles: [PixelRect(x: 0, y: 0, width: 360, height: 640), PixelRect(x: 400, y: 0, width: 360, height: 640)]),
        // Unequal screens: the column is as wide, the row as tall as its largest screen.
        SpanCase(name: "2x1 unequal", grid: GridSize(columns: 2, rows: 1),
                 screens: [hd, PixelSize(width: 800, height: 600)], bezel: 0, canvas: PixelSize(width: 1440, height: 600),
                 tiles: [PixelRect(x: 0, y: 0, width: 640, height: 360), PixelRect(x: 640, y: 0, width: 800, height: 600)]),
    ]

    @Test(arguments: cases)
    func tilesAndCanvas(_ c: SpanCase) throws {
        let span = try #require(SpanLayout(grid: c.grid, screens: c.screens, bezel: c.bezel))
        #expect(span.canvas == c.canvas)
        #expect(span.tiles == c.tiles)
    }

    @Test func countMustFillTheGrid() {
        #expect(SpanLayout(grid: GridSize(columns: 2, rows: 2), screens: [Self.hd, Self.hd], bezel: 0) == nil)
    }

    @Test func spanPlacementsAreUnscaledAndTurnedForTheScreen() throws {
        let span = try #require(SpanLayout(grid: GridSize(columns: 2, rows: 1), screens: [Self.hd.transposed, Self.hd.transposed], bezel: 0))
        // Buffers in the panels' own (landscape) orientation: the copy turns the tile.
        let placements = span.placements(buffers: [Self.hd, Self.hd], rotations: [.clockwise90, .clockwise270])
        #expect(placements.map(\.canvasRect) == span.tiles)
        #expect(placements.map(\.layout.destination) == [PixelRect(size: Self.hd), PixelRect(size: Self.hd)])
        #expect(placements.map(\.layout.rotation) == [.clockwise90, .clockwise270])
    }

    @Test func mirrorFitsTheCanvasToEachScreen() {
        let canvas = Self.hd
        let placements = MirrorLayout.placements(canvas: canvas, buffers: [Self.hd, PixelSize(width: 640, height: 480)],
                                                 rotations: [.none, .none])
        #expect(placements[0].layout.destination == PixelRect(size: Self.hd))
        #expect(placements[1].layout.destination == PixelRect(x: 0, y: 60, width: 640, height: 360))
        #expect(placements.allSatisfy { $0.canvasRect == PixelRect(size: canvas) })
    }

    @Test func theSeamColumnContinuesAcrossTheBezel() throws {
        // A canvas whose every column has its own colour: head 1's first column is the canvas
        // column bezel + 1 past head 0's last one.
        let span = try #require(SpanLayout(grid: GridSize(columns: 2, rows: 1),
                                           screens: [PixelSize(width: 8, height: 2), PixelSize(width: 8, height: 2)], bezel: 3))
        let canvas = SpanTestCanvas(size: span.canvas)
        for x in 0..<span.canvas.width { for y in 0..<2 { canvas.set(x: x, y: y, UInt32(x)) } }
        let heads = [SpanTestCanvas(size: PixelSize(width: 8, height: 2)), SpanTestCanvas(size: PixelSize(width: 8, height: 2))]
        let placements = span.placements(buffers: heads.map(\.buffer.size), rotations: [.none, .none])
        for (head, placement) in zip(heads, placements) {
            head.buffer.draw(placement.canvasRect, of: canvas.buffer, as: placement.layout)
        }
        #expect(heads[0].buffer.pixel(x: 7, y: 1) == 7)
        #expect(heads[1].buffer.pixel(x: 0, y: 1) == 7 + 3 + 1)
    }

    @Test func aTurnedCopyPutsTheTopLeftWhereTheTurnSays() {
        let source = SpanTestCanvas(size: PixelSize(width: 4, height: 2))
        for x in 0..<4 { for y in 0..<2 { source.set(x: x, y: y, UInt32(10 * y + x)) } }
        let turned = SpanTestCanvas(size: PixelSize(width: 2, height: 4))
        let layout = GravityLayout(source: source.buffer.size, rotation: .clockwise90, target: turned.buffer.size, gravity: .stretch)
        turned.buffer.draw(PixelRect(size: source.buffer.size), of: source.buffer, as: layout)
        // Turned 90 clockwise: the source's top-left is at the top-right, its bottom-left at the top-left.
        #expect(turned.buffer.pixel(x: 1, y: 0) == 0)
        #expect(turned.buffer.pixel(x: 0, y: 0) == 10)
        #expect(turned.buffer.pixel(x: 0, y: 3) == 13)
    }
}

/// Memory for a PixelBuffer in a test.
final class SpanTestCanvas {
    let buffer: PixelBuffer
    init(size: PixelSize) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size.width * size.height * 4, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: size.width * size.height * 4)
        buffer = PixelBuffer(base: memory, size: size, stride: size.width * 4, index: 0)
    }
    func set(x: Int, y: Int, _ value: UInt32) { buffer.base.storeBytes(of: value, toByteOffset: y * buffer.stride + x * 4, as: UInt32.self) }
    deinit { buffer.base.deallocate() }
}
