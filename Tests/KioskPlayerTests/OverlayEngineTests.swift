import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// The overlay through the whole engine on a headless display: a clip made with ffmpeg plays,
/// is paused, the overlay is asked for (as a tap does) and the screen is read back.
@Suite(.serialized) struct OverlayEngineTests {
    static let clipSeconds = 4.0

    static func clip() throws -> PlaylistEntry {
        let path = try MediaFixtures.pattern("overlay-engine.mp4", width: 320, height: 240, seconds: clipSeconds)
        let item = ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: 1, column: 1))
        return try #require(PlaylistExpander().expand([item]).entries.first)
    }

    static func player(on display: HeadlessDisplay, hideAfter: Double, log: CapturedLog) throws -> QueuePlayer {
        var settings = PlayerSettings()
        var overlay = OverlayConfig()
        overlay.hideAfter = MediaTime(seconds: hideAfter)
        settings.overlay = overlay
        return try QueuePlayer(output: display, playlist: PlaylistCursor(entries: [clip()], loopMode: .item),
                               settings: settings, logger: log.logger)
    }

    static func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        KioskTestSupport.waitUntil(seconds, condition)
    }

    /// The bar's row on the viewer's screen: its fill and track pixels.
    static func bar(on display: HeadlessDisplay) throws -> (fill: Int, track: Int, width: Int) {
        let buffer = try #require(display.frontBuffer)
        let layout = OverlayLayout(screen: OverlayLayout.viewerSize(buffer: display.size, rotation: display.softwareRotation))
        var fill = 0, track = 0
        for x in 0..<layout.screen.width {
            switch buffer.viewerPixel(x: x, y: layout.bar.y + layout.bar.height / 2, rotation: display.softwareRotation) {
            case OverlayPainter.barFillColor: fill += 1
            case OverlayPainter.barTrackColor: track += 1
            default: break
            }
        }
        return (fill, track, layout.bar.width)
    }

    @Test(arguments: [Rotation.none, .clockwise90])
    func pausedTapShowsTheBarWithTheRightFillThenItHides(rotation: Rotation) throws {
        let display = HeadlessDisplay(size: PixelSize(width: 640, height: 360), rotation: rotation)
        let log = CapturedLog()
        let player = try Self.player(on: display, hideAfter: 1.5, log: log)
        player.start()
        defer { player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 1 }, "the clip plays")
        #expect(try Self.bar(on: display).track == 0, "no overlay before any input")

        player.send(.pause)
        player.showOverlay()
        let shownAt = Date()
        // Paused: no new frame comes, yet the overlay appears (the last picture drawn again).
        #expect(Self.waitUntil(1) { ((try? Self.bar(on: display).track) ?? 0) > 0 }, "the bar appears while paused")
        let duration = try #require(player.duration).seconds
        let expected = player.currentTime.seconds / duration
        let bar = try Self.bar(on: display)
        #expect(bar.fill + bar.track == bar.width, "the whole bar is on the bottom row")
        let fraction = Double(bar.fill) / Double(bar.width)
        #expect(abs(fraction - expected) < 0.02, "fill \(fraction) for position \(expected)")

        // Still paused: hide_after later it is gone.
        #expect(Self.waitUntil(5) { ((try? Self.bar(on: display).track) ?? 1) == 0 }, "the overlay hides")
        #expect(Date().timeIntervalSince(shownAt) >= 1.4, "not before hide_after")
        #expect(log.lines(atLeast: .error).isEmpty, "\(log.lines(atLeast: .error))")
    }

    @Test func aScrubMovesTheBarBeforeTheSeekLands() throws {
        let display = HeadlessDisplay(size: PixelSize(width: 640, height: 360))
        let log = CapturedLog()
        let player = try Self.player(on: display, hideAfter: 5, log: log)
        player.start()
        defer { player.stop() }
        #expect(Self.waitUntil(20) { player.duration != nil && player.currentTime.seconds > 0.2 })
        player.send(.pause)
        let duration = try #require(player.duration)
        player.showOverlay(scrubbingTo: duration * Rational(3, 4))
        #expect(Self.waitUntil(2) {
            guard let bar = try? Self.bar(on: display), bar.track > 0 else { return false }
            return abs(Double(bar.fill) / Double(bar.width) - 0.75) < 0.01
        }, "the bar shows 3/4")
    }

    @Test func aReloadedSectionTurnsTheOverlayOn() throws {
        let display = HeadlessDisplay(size: PixelSize(width: 640, height: 360))
        var settings = PlayerSettings()
        var off = OverlayConfig()
        off.enabled = false
        settings.overlay = off
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: [Self.clip()], loopMode: .item),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        defer { player.stop() }
        #expect(Self.waitUntil(20) { player.currentTime.seconds > 0.2 })
        player.send(.pause)
        player.showOverlay()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try Self.bar(on: display).track == 0, "enabled: false shows nothing")
        var on = OverlayConfig()
        on.hideAfter = MediaTime(seconds: 5)
        settings.overlay = on
        player.reload(settings)
        // Switched off, no frame was kept to draw again: the next frames carry it.
        player.send(.play)
        player.showOverlay()
        #expect(Self.waitUntil(3) { ((try? Self.bar(on: display).track) ?? 0) > 0 }, "shown once enabled")
    }

    @Test func nothingPlayableShowsTheIdleLineAsNonVideoFrames() throws {
        let junk = try MediaFixtures.file("overlay-junk.mp4", bytes: Array("not a video".utf8))
        let item = ItemConfig(source: .file(junk), location: SourceLocation(file: "test", line: 1, column: 1))
        let entries = PlaylistExpander().expand([item]).entries
        let stats = MediaFixtures.directory.appendingPathComponent("overlay-idle-stats.jsonl").path
        var settings = PlayerSettings()
        settings.overlay = OverlayConfig()
        settings.statsPath = stats
        let display = HeadlessDisplay(size: PixelSize(width: 640, height: 360))
        let log = CapturedLog()
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: entries, loopMode: .playlist),
                                     settings: settings, logger: log.logger)
        player.start()
        defer { player.stop() }
        #expect(Self.waitUntil(10) { display.frontBuffer != nil })
        player.stop()
        let buffer = try #require(display.frontBuffer)
        // The line is centered: idle-colored text pixels on the middle rows, black elsewhere.
        var textPixels = 0
        for y in 160..<200 {
            for x in 0..<640 where buffer.pixel(x: x, y: y) == OverlayPainter.idleTextColor { textPixels += 1 }
        }
        #expect(textPixels > 200, "a line of text in the middle")
        #expect(buffer.pixel(x: 5, y: 5) == 0 && buffer.pixel(x: 320, y: 20) == 0, "black around it")
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains("\"video\":false") }, "\(lines)")
    }

    @Test func theIdleLineSaysWhy() throws {
        let navigator = PlaylistNavigator(cursor: PlaylistCursor(entries: try [Self.clip(), Self.clip(), Self.clip()], loopMode: .playlist))
        #expect(navigator.idleReason(retryAfter: MediaTime(value: 8, timescale: 1)) == "No playable item: 3 of 3 failed; retrying in 8 s")
    }

    @Test func aBadFontIsOneErrorAndPlaybackGoesOn() throws {
        let log = CapturedLog()
        var config = OverlayConfig()
        config.font = .file("/nonexistent/kiosk-font.ttf")
        #expect(OverlayState.make(config, logger: log.logger) == nil)
        #expect(log.lines(atLeast: .error) == ["overlay: font /nonexistent/kiosk-font.ttf: no such file; playing without the on-screen display"])
    }
}
