import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// `display.splash`: on screen from the start until the first frame, and as the idle screen;
/// a splash that cannot be decoded is one error line and black.
@Suite(.serialized) struct SplashEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    /// A blue picture, 16:9 like the screen: the whole screen turns blue.
    static func splash() throws -> String {
        try MediaFixtures.clip("splash-blue.png", ["-f", "lavfi", "-i", "color=c=blue:s=160x90", "-frames:v", "1"])
    }

    static func garbage() throws -> String {
        try MediaFixtures.file("splash-garbage.mp4", bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
    }

    static func clip() throws -> String {
        try MediaFixtures.clip("splash-red-clip.mp4", ["-f", "lavfi", "-i", "color=c=red:s=160x90:r=25:d=1",
                                                       "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
    }

    static func player(_ sources: [String], splash: String?, on display: HeadlessDisplay, stats: String? = nil,
                       log: CapturedLog) throws -> QueuePlayer {
        let items = sources.enumerated().map { index, path in
            ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: index + 1, column: 1))
        }
        var settings = PlayerSettings()
        settings.display.splash = splash
        settings.statsPath = stats
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: PlaylistExpander().expand(items).entries,
                                                                              loopMode: .playlist),
                                     settings: settings, logger: log.logger)
        player.start()
        return player
    }

    static func center(_ display: HeadlessDisplay) -> UInt32? {
        display.frontBuffer.map { $0.pixel(x: 160, y: 90) }
    }

    /// XRGB8888 blue and red as the scaler draws them from limited-range video (near, not exact).
    static func isBlue(_ pixel: UInt32?) -> Bool {
        guard let pixel else { return false }
        return pixel & 0xFF > 200 && (pixel >> 8) & 0xFF < 40 && (pixel >> 16) & 0xFF < 40
    }

    @Test func theIdleScreenIsTheSplash() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player([try Self.garbage()], splash: try Self.splash(), on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(20) { log.lines(atLeast: .error).contains { $0.contains("nothing in the playlist can play") } })
        #expect(waitUntil(5) { Self.isBlue(Self.center(display)) }, "center \(String(describing: Self.center(display)))")
        let corner = display.frontBuffer?.pixel(x: 2, y: 2)
        #expect(Self.isBlue(corner), "a 16:9 splash fills a 16:9 screen")
        #expect(!log.lines(atLeast: .error).contains { $0.hasPrefix("splash: ") }, "the splash loaded")
    }

    /// The splash is the first picture, then the first frame replaces it.
    @Test func theSplashIsUpUntilTheFirstFrame() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let stats = MediaFixtures.directory.appendingPathComponent("splash-stats-\(UUID().uuidString).jsonl").path
        let player = try Self.player([try Self.clip()], splash: try Self.splash(), on: display, stats: stats, log: CapturedLog())
        defer { player.stop() }
        #expect(waitUntil(20) { player.framesPresented >= 3 })
        let lines = try String(contentsOfFile: stats, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains("\"video\":false") == true, "\(lines.prefix(2))")
        #expect(lines.dropFirst().first?.contains("\"video\":true") == true, "\(lines.prefix(2))")
        #expect(!Self.isBlue(Self.center(display)), "the clip's red replaced the splash")
    }

    @Test func aSplashThatCannotBeDecodedIsOneLineAndBlack() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.player([try Self.garbage()], splash: try Self.garbage(), on: display, log: log)
        defer { player.stop() }
        #expect(waitUntil(20) { log.lines(atLeast: .error).contains { $0.contains("nothing in the playlist can play") } })
        let splashLines = log.lines(atLeast: .error).filter { $0.hasPrefix("splash: ") }
        #expect(splashLines.count == 1 && splashLines[0].contains("splash-garbage.mp4"), "\(splashLines)")
        #expect(waitUntil(5) { Self.center(display) == 0 }, "black")
    }
}
