import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// `screenshot`: what is on screen, from kiosk's own buffers, read back with ffmpeg (not kiosk's
/// code) and compared with the display's front buffer or with the CPU path's picture.
@Suite(.serialized) struct ScreenshotEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    static func clip() throws -> String {
        // 4:3 into 16:9: bars left and right, the pattern in the middle.
        try MediaFixtures.clip("shot-pattern.mp4", ["-f", "lavfi", "-i", "testsrc2=s=240x180:r=25:d=2",
                                                    "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast"])
    }

    /// A player paused on the clip's first frame, shown.
    static func pausedPlayer(on output: VideoOutput) throws -> QueuePlayer {
        let item = ItemConfig(source: .file(try clip()), location: SourceLocation(file: "test", line: 1, column: 1))
        var settings = PlayerSettings()
        settings.playback.startPaused = true
        let player = try QueuePlayer(output: output, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                             loopMode: .playlist),
                                     settings: settings, logger: CapturedLog().logger)
        player.start()
        #expect(waitUntil(20) { player.framesPresented >= 1 }, "the first frame is shown")
        return player
    }

    static func path(_ name: String) -> String {
        MediaFixtures.directory.appendingPathComponent("\(name)-\(UUID().uuidString).png").path
    }

    /// The display's front buffer (XRGB8888 in memory: B, G, R, X) as RGB bytes.
    static func frontRGB(_ display: HeadlessDisplay) throws -> [UInt8] {
        let front = try #require(display.frontBuffer)
        var rgb: [UInt8] = []
        for y in 0..<front.size.height {
            let row = front.base.advanced(by: y * front.stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<front.size.width { rgb += [row[x * 4 + 2], row[x * 4 + 1], row[x * 4]] }
        }
        return rgb
    }

    @Test func theCPUPathSavesTheFrontBufferExactly() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let player = try Self.pausedPlayer(on: display)
        defer { player.stop() }
        let path = Self.path("shot-cpu")
        try player.saveScreenshot(to: path)
        let image = try RGBImage(reading: path)
        #expect(image.width == 320 && image.height == 180)
        // Read before #expect: Swift 6.0's #expect does not take a `try` inside a comparison.
        let front = try Self.frontRGB(display)
        #expect(image.bytes == front)
        #expect(image.pixel(5, 90).isBlack && !image.pixel(160, 90).isBlack, "bars at the sides, the picture between")
    }

    /// On a video plane nothing is in the CPU buffer: the frame is drawn in software as the CPU
    /// path would, and equals that path's picture of the same frame.
    @Test func thePlanePathIsComposedLikeTheCPUPath() throws {
        let planes = SimulatedPlaneDisplay(size: Self.screen)
        let onPlane = try Self.pausedPlayer(on: planes)
        defer { onPlane.stop() }
        #expect(!planes.shown.isEmpty && planes.cpuPresents == 0, "the frame went to the plane")
        let planeShot = Self.path("shot-plane")
        try onPlane.saveScreenshot(to: planeShot)

        let headless = HeadlessDisplay(size: Self.screen)
        let onCPU = try Self.pausedPlayer(on: headless)
        defer { onCPU.stop() }
        let cpuShot = Self.path("shot-cpu-twin")
        try onCPU.saveScreenshot(to: cpuShot)

        let composed = try RGBImage(reading: planeShot), drawn = try RGBImage(reading: cpuShot)
        #expect(composed.width == 320 && composed.height == 180)
        #expect(composed.meanDifference(to: drawn) < 0.5, "\(composed.meanDifference(to: drawn))")
        #expect(!composed.pixel(160, 90).isBlack)
    }

    @Test func aDarkScreenAndAnEmptyOneSayWhy() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let player = try Self.pausedPlayer(on: display)
        defer { player.stop() }
        player.send(.setDisplayPower(on: false))
        #expect(waitUntil(10) { !player.isDisplayOn })
        let path = Self.path("shot-off")
        #expect(throws: ScreenshotError.self) { try player.saveScreenshot(to: path) }
        do { try player.saveScreenshot(to: path) } catch { #expect("\(error)" == "the display is off") }
        #expect(!FileManager.default.fileExists(atPath: path))

        let fresh = FramePresenter(output: HeadlessDisplay(size: Self.screen), overlay: nil, observers: [],
                                   heartbeat: PresenterHeartbeat(), logger: CapturedLog().logger)
        guard case .taken(.failure(let error)) = fresh.beginCapture() else {
            Issue.record("a screen that has shown nothing gave a picture")
            return
        }
        #expect(error.description == "nothing has been shown yet")
    }

    @Test func anUnwritablePathIsOneLineAndPlaybackGoesOn() throws {
        let display = HeadlessDisplay(size: Self.screen)
        let player = try Self.pausedPlayer(on: display)
        defer { player.stop() }
        do {
            try player.saveScreenshot(to: "/nonexistent-dir/shot.png")
            Issue.record("saved into a directory that does not exist")
        } catch {
            #expect("\(error)".contains("/nonexistent-dir/shot.png") && !"\(error)".contains("\n"), "\(error)")
        }
        player.send(.play)
        let shown = player.framesPresented
        #expect(waitUntil(20) { player.framesPresented > shown + 5 }, "playing on")
    }
}
