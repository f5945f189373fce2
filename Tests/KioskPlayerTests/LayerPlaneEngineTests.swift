import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// The layers' plane through the whole engine (issue 32), on the headless display with a YUV
/// plane and an ARGB plane above it: the video stays on its plane while a ticker and a text
/// box are drawn into the ARGB plane, the ticker moving at each refresh; without that plane the
/// layers send the video back to the CPU path, as before.
@Suite(.serialized) struct LayerPlaneEngineTests {
    static let screen = PixelSize(width: 320, height: 180)
    static let red = LayerColor(rgb: 0xFF_0000)

    static func clip() throws -> String {
        try MediaFixtures.clip("layers-plane.mp4", ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=2",
                                                    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
    }

    /// A red box with text at the top left, and a ticker on a black strip at the bottom.
    static var layers: [LayerConfig] {
        [LayerConfig(name: "box", content: .text("KIOSK"), position: .topLeft, margin: .pixels(0), size: .pixels(24),
                     color: .white, background: red),
         LayerConfig(name: "news", content: .ticker(.text("News of the day +++ more news +++"), speed: 120, separator: " +++ "),
                     position: .bottom, margin: .pixels(0), size: .pixels(20), background: LayerColor(rgb: 0))]
    }

    static func settings(layers: [LayerConfig] = layers, paused: Bool = false) -> PlayerSettings {
        var settings = PlayerSettings()
        settings.overlay = OverlayConfig()   // the font; the OSD stays hidden without input
        settings.layers = layers
        settings.playback.startPaused = paused
        return settings
    }

    static func player(on output: VideoOutput, paused: Bool = false, layers: [LayerConfig] = layers,
                       log: CapturedLog) throws -> QueuePlayer {
        let item = ItemConfig(source: .file(try clip()), location: SourceLocation(file: "test", line: 1, column: 1))
        let settings = settings(layers: layers, paused: paused)
        let player = try QueuePlayer(output: output, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                             loopMode: .playlist),
                                     settings: settings, logger: log.logger)
        player.start()
        return player
    }

    /// The layers' plane's pixels (premultiplied ARGB) in `rect`.
    static func pixels(_ buffer: PixelBuffer, _ rect: PixelRect) -> [UInt32] {
        var result: [UInt32] = []
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX { result.append(buffer.pixel(x: x, y: y)) } }
        return result
    }

    @Test func tickerAndTextGoOnTheirPlanesOverPlaneVideo() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.planePresents >= 20 }, "frames on the video plane (\(display.planePresents))")
        #expect(display.screen.frontIndex == nil, "the CPU path drew nothing")
        #expect(display.tickerScrolls > display.planePresents / 2, "the ticker's plane moves at each refresh")
        let strip = PixelRect(x: 0, y: 150, width: 320, height: 30)
        let ticker = try #require(display.shownTicker)
        #expect(ticker.strip == strip && ticker.window.size == PixelSize(width: 640, height: 30), "\(ticker.strip) \(ticker.window.size)")
        let first = Self.shownStrip(ticker)
        #expect(first.allSatisfy { $0 >> 24 == 0xFF }, "the ticker's strip is opaque (its black box, the line over it)")
        #expect(first.contains { $0 & 0xFF_FFFF > 0x80_8080 }, "the ticker's line is drawn")
        let shown = try #require(display.shownLayers)
        #expect(shown.pixel(x: 2, y: 2) == 0xFFFF_0000, "the text box, opaque red")
        #expect(shown.pixel(x: 160, y: 90) == 0, "the middle is transparent: the video shows through")
        #expect(Self.pixels(shown, strip).allSatisfy { $0 == 0 }, "the ticker's box is on its own plane, not on the layers'")
        let scrolls = display.tickerScrolls
        let layerCommits = display.layerPresents
        #expect(waitUntil(10) { display.tickerScrolls >= scrolls + 5 })
        let later = Self.shownStrip(try #require(display.shownTicker))
        #expect(later != first, "the ticker moved")
        #expect(display.layerPresents - layerCommits < 5, "the still layers are not committed again at each refresh")
        let lines = log.lines(atLeast: .trace)
        #expect(lines.contains { $0.contains("layers' plane: the layers are drawn on plane 35 over the video plane 33") }, "\(lines)")
        #expect(lines.contains { $0.contains("layers' plane: the ticker scrolls on plane 37 of its own (a 640x30 window)") }, "\(lines)")
        #expect(log.lines(atLeast: .warning).isEmpty, "\(log.lines(atLeast: .warning))")
    }

    /// What the ticker's plane shows: its window's strip-wide part from the source column.
    static func shownStrip(_ ticker: TickerScroll) -> [UInt32] {
        pixels(ticker.window, PixelRect(x: ticker.sourceX, y: 0, width: ticker.strip.width, height: ticker.strip.height))
    }

    /// A reload that makes the ticker taller: its plane's window, on screen, cannot change under
    /// it; the ticker goes with the layers for a refresh (its plane taken down), then onto a new
    /// window of the new size.
    @Test func aTallerTickerAfterAReloadGetsANewWindow() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.shownTicker?.strip.height == 30 }, "the ticker on its plane")
        var taller = Self.layers
        taller[1].size = .pixels(30)
        player.reload(Self.settings(layers: taller))
        #expect(waitUntil(20) { (display.shownTicker?.strip.height ?? 0) > 30 }, "a taller window")
        let ticker = try #require(display.shownTicker)
        #expect(ticker.window.size == PixelSize(width: 640, height: ticker.strip.height) && ticker.strip.maxY == 180)
        #expect(Self.pixels(try #require(display.shownLayers), ticker.strip).allSatisfy { $0 == 0 },
                "the layers' plane has no ticker left in it")
        let windows = log.lines(atLeast: .trace).filter { $0.contains("the ticker scrolls on plane 37") }
        #expect(windows.count == 2, "\(windows)")
        #expect(log.lines(atLeast: .warning).isEmpty, "\(log.lines(atLeast: .warning))")
    }

    @Test func twoTickersAreDrawnWithTheLayersAtEachRefresh() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let second = LayerConfig(name: "top", content: .ticker(.text("Second line +++"), speed: 60, separator: " +++ "),
                                 position: .top, margin: .pixels(40), size: .pixels(20), background: LayerColor(rgb: 0))
        let player = try Self.player(on: display, layers: Self.layers + [second], log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.planePresents >= 20 }, "frames on the video plane (\(display.planePresents))")
        #expect(display.tickerScrolls == 0 && display.shownTicker == nil, "no ticker's plane for two tickers")
        #expect(display.layerPresents > display.planePresents / 2, "the layers' plane changes with the tickers")
        let strip = PixelRect(x: 0, y: 150, width: 320, height: 30)
        let first = Self.pixels(try #require(display.shownLayers), strip)
        #expect(first.allSatisfy { $0 >> 24 == 0xFF }, "the ticker's strip is opaque (its black box, the line over it)")
        let refreshes = display.layerPresents
        #expect(waitUntil(10) { display.layerPresents >= refreshes + 5 })
        #expect(Self.pixels(try #require(display.shownLayers), strip) != first, "the ticker moved")
    }

    /// The window scrolled by its source column shows what drawing the line at its new place
    /// would: at every step over more than a strip's width, the next run included.
    @Test func theTickersWindowScrolledShowsTheLineWhereItIs() throws {
        let screen = PixelSize(width: 200, height: 120)
        let layer = LayerConfig(name: "news", content: .ticker(.text("Scroll +++"), speed: 120, separator: " +++ "),
                                position: .bottom, margin: .pixels(0), size: .pixels(20), background: LayerColor(rgb: 0x20_4060))
        let made = LayerState.make([layer], font: .auto, feedFetch: { _, _, _, _ in .failed("none") }, logger: Logger(label: "test"))
        let state = try #require(made)
        let strip = try #require(state.soleTickerStrip(screen: screen, rotation: .none))
        #expect(state.soleTickerStrip(screen: screen, rotation: .clockwise90) == nil, "a turned screen keeps the ticker with the layers")
        func window() -> PixelBuffer {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: 2 * strip.width * 4 * strip.height, alignment: 64)
            return PixelBuffer(base: memory, size: PixelSize(width: 2 * strip.width, height: strip.height),
                               stride: 2 * strip.width * 4, format: .argb8888, index: 0)
        }
        let drawnOnce = window(), fresh = window()
        defer { drawnOnce.base.deallocate(); fresh.base.deallocate() }
        let interval = 1.0 / 60
        let (x0, text, cycle) = try #require(state.advanceSoleTicker(flipTime: 100, refreshInterval: interval, screen: screen))
        #expect(text == "Scroll +++" && x0 == strip.width && cycle > strip.width)
        state.drawSoleTicker(into: drawnOnce, lineX: x0, cycle: cycle, screen: screen)
        var checked = 0
        for refresh in 1...(cycle / 2) {
            let (x, _, _) = try #require(state.advanceSoleTicker(flipTime: 100 + Double(refresh) * interval,
                                                                  refreshInterval: interval, screen: screen))
            let sourceX = ((x0 - x) % cycle + cycle) % cycle
            guard sourceX + strip.width <= drawnOnce.size.width else { break }
            state.drawSoleTicker(into: fresh, lineX: x, cycle: cycle, screen: screen)
            let view = PixelRect(x: 0, y: 0, width: strip.width, height: strip.height)
            #expect(Self.pixels(drawnOnce, PixelRect(x: sourceX, y: 0, width: strip.width, height: strip.height))
                    == Self.pixels(fresh, view), "at x \(x), column \(sourceX)")
            checked += 1
        }
        #expect(checked >= strip.width / 2 - 1, "\(checked) steps")
    }

    @Test func aScreenshotLaysTheLayersOverThePlaneFrame() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, paused: true, log: log)
        defer { player.stop() }
        #expect(waitUntil(20) { display.planePresents >= 1 && display.shownLayers != nil }, "the paused frame and its layers")
        let path = MediaFixtures.directory.appendingPathComponent("layers-plane-\(UUID().uuidString).png").path
        try player.saveScreenshot(to: path)
        let image = try RGBImage(reading: path)
        let box = image.pixel(2, 2)
        #expect(box.r > 240 && box.g < 16 && box.b < 16, "the red text box over the frame: \(box)")
        let strip = image.pixel(1, 178)
        #expect(strip.r < 16 && strip.g < 16 && strip.b < 16, "the ticker's black strip: \(strip)")
        #expect(!image.pixel(160, 90).isBlack, "the frame shows through the middle")
    }

    @Test func withoutALayersPlaneTheLayersGoIntoTheCPUPicture() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.cpuPresents >= 20 }, "CPU-path pictures (\(display.cpuPresents))")
        #expect(display.shown.isEmpty, "no frame on the video plane: the layers are drawn into the picture")
        let front = try #require(display.screen.frontBuffer)
        #expect(front.pixel(x: 2, y: 2) & 0xFF_FFFF == 0xFF_0000, "the text box in the CPU picture")
    }

    @Test func theLayersComeBackOnTheirPlaneWhenTheScreenIsOnAgain() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        // The box alone: still layers are committed only when they change (a ticker is at every refresh).
        let player = try Self.player(on: display, layers: [Self.layers[0]], log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.shownLayers?.pixel(x: 2, y: 2) == 0xFFFF_0000 }, "the box on the plane")
        player.send(.setDisplayPower(on: false))
        #expect(waitUntil(10) { !display.screen.isPoweredOn && display.shownLayers == nil }, "off: the planes are down")
        let presents = display.planePresents
        player.send(.setDisplayPower(on: true))
        #expect(waitUntil(20) { display.planePresents > presents + 5 }, "frames on the video plane again")
        #expect(display.shownLayers?.pixel(x: 2, y: 2) == 0xFFFF_0000, "and the layers over them")
    }

    @Test func hidingTheLayersTakesThemOffThePlane() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.shownLayers?.pixel(x: 2, y: 2) == 0xFFFF_0000 }, "the box on the plane")
        player.send(.layer(name: "box", .hide))
        #expect(waitUntil(10) { display.shownLayers?.pixel(x: 2, y: 2) == 0 }, "the box gone from the plane")
        #expect(display.screen.frontIndex == nil, "still no CPU picture")
    }

    /// The session gives the screen back while the presenter is still drawing (a stop it did not
    /// obey within its grace time): neither plane path is turned off or logged as failing, and
    /// the closing is said once, not as a display error.
    @Test func aDisplayClosedUnderThePresenterFailsNoPlane() throws {
        let display = HeadlessPlaneDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player(on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(30) { display.planePresents >= 3 && display.tickerScrolls >= 5 }, "video and ticker on their planes")
        try display.close()
        let closing = "display: closed while kiosk was still drawing"
        #expect(log.waitFor(timeout: 30) { $0.contains(closing) }, "\(log.formatted)")
        #expect(player.presenterHealth.displayFailingSince != nil, "the watchdog still hears that nothing is shown")
        // The loop goes on meeting the closed display meanwhile: frames and ticker refreshes.
        let beats = player.presenterHealth.loopActivity
        #expect(waitUntil(30) { player.presenterHealth.loopActivity > beats + 0.5 }, "the loop came round again")
        let said = log.formatted
        #expect(said.filter { $0.contains(closing) }.count == 1, "said once: \(said)")
        #expect(!said.contains { $0.contains("not used") || $0.contains("failed") || $0.contains("from now on") }, "\(said)")
        #expect(log.lines(atLeast: .warning).isEmpty, "\(log.lines(atLeast: .warning))")
    }
}
