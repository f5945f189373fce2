import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// Screenshots read back from the display (a DRM writeback connector on vkms, Rockchip, Mali-DP)
/// and the pause that names the frame on screen. The real writeback is tested in the bed
/// (Tests/System/test_planes_vkms.py); here a display in memory stands in for the driver.
@Suite(.serialized) struct ReadBackEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    /// A headless display that says it reads its picture back: the picture it gives is painted
    /// one colour the engine never draws, so a screenshot shows whether it came from here.
    final class ReadBackDisplay: VideoOutput {
        let inner: HeadlessDisplay
        let failing: Bool
        /// How long each read-back takes (a slow driver's writeback).
        let seconds: Double
        private(set) var readBacks = 0
        init(size: PixelSize, failing: Bool = false, seconds: Double = 0) {
            inner = HeadlessDisplay(size: size)
            self.failing = failing
            self.seconds = seconds
        }
        var size: PixelSize { inner.size }
        var refreshInterval: MediaTime { inner.refreshInterval }
        func backBuffer() throws -> PixelBuffer { try inner.backBuffer() }
        func present(_ buffer: PixelBuffer) throws -> Double { try inner.present(buffer) }
        var screenshotSource: String { failing ? "composed by kiosk (the driver refused)" : "read back through a test's writeback" }
        func readBack(_ body: (PixelBuffer) -> Void) throws -> Bool {
            readBacks += 1
            if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
            if failing { throw DRMError.callFailed(what: "reading back", call: "drmModeAtomicCommit", errno: EINVAL) }
            let stride = size.width * 4
            let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 64)
            defer { memory.deallocate() }
            let picture = PixelBuffer(base: memory, size: size, stride: stride, index: -1)
            picture.fill(PixelRect(size: size), color: 0x00_12_34_56)
            body(picture)
            return true
        }
    }

    @Test func aDisplayThatReadsBackGivesItsOwnPictureAndSaysSo() throws {
        let display = ReadBackDisplay(size: Self.screen)
        let log = CapturedLog()
        let player = try Self.pausedPlayer(on: display, log: log)
        defer { player.stop() }
        let path = ScreenshotEngineTests.path("shot-readback")
        try player.saveScreenshot(to: path)
        let image = try RGBImage(reading: path)
        #expect(image.width == 320 && image.height == 180)
        #expect(image.pixel(5, 5) == RGBImage.Color(0x12, 0x34, 0x56) && image.pixel(160, 90) == RGBImage.Color(0x12, 0x34, 0x56),
                "the read-back picture, not kiosk's buffer: \(image.pixel(160, 90))")
        #expect(display.readBacks == 1)
        #expect(log.formatted.contains("notice: screenshots: read back through a test's writeback"), "\(log.formatted)")
    }

    @Test func aFailedReadBackIsComposedFromKiosksBuffersWithOneLine() throws {
        let display = ReadBackDisplay(size: Self.screen, failing: true)
        let log = CapturedLog()
        let player = try Self.pausedPlayer(on: display, log: log)
        defer { player.stop() }
        let path = ScreenshotEngineTests.path("shot-readback-failed")
        try player.saveScreenshot(to: path)
        let image = try RGBImage(reading: path)
        #expect(image.pixel(5, 90).isBlack && !image.pixel(160, 90).isBlack, "kiosk's own picture: bars, then the clip")
        let warnings = log.lines(atLeast: .warning)
        #expect(warnings.count == 1 && warnings[0].contains("reading the display back failed"), "\(warnings)")
    }

    /// A screenshot asked for while the presenter read another back (1.5 s each here; 10-20 s
    /// on a starved vkms guest in CI), whose asker gave up before the presenter came to it, is
    /// not read back: asked again after each timeout, every request still queued read the
    /// screen back in turn, and the presenter stayed held long after.
    @Test func aScreenshotNobodyWaitsForAnyMoreIsNotTaken() throws {
        let display = ReadBackDisplay(size: Self.screen, seconds: 1.5)
        let log = CapturedLog()
        let player = try Self.pausedPlayer(on: display, log: log)
        defer { player.stop() }
        let first = ScreenshotEngineTests.path("shot-readback-slow")
        let taken = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = try? player.saveScreenshot(to: first, timeout: 20)
            taken.signal()
        }
        thread.start()
        // The first is being read back (the presenter is held); two more give up after 0.3 s.
        #expect(waitUntil(5) { display.readBacks == 1 }, "the first read-back began")
        for n in 0..<2 {
            #expect(throws: ScreenshotError.self) { try player.saveScreenshot(to: ScreenshotEngineTests.path("shot-given-up-\(n)"), timeout: 0.3) }
        }
        #expect(taken.wait(timeout: .now() + 20) == .success, "the first was answered")
        #expect(FileManager.default.fileExists(atPath: first))
        // A request asked after them is taken: the presenter has passed the two given up.
        try player.saveScreenshot(to: ScreenshotEngineTests.path("shot-after"), timeout: 20)
        let readBacks = display.readBacks
        #expect(readBacks == 2, "the first and the last read back, not the two given up (\(readBacks))")
    }

    /// On a panel with vblanks the presenter puts up the frame due at the flip, up to a refresh
    /// after the clock; a pause must not leave the clock before the frame on screen (it named a
    /// frame the screen no longer showed, found on vkms: `get time` 1.559, the screen 1.567).
    /// A 10 Hz grid makes the gap up to 100 ms, four frames of a 25 fps clip.
    @Test func aPausedClockNamesTheFrameOnScreen() throws {
        let entry = try PlaylistProgramEngineTests.entry("pause-names-frame.mp4", seconds: 4)
        let stats = PlaylistProgramEngineTests.statsPath("pause-names-frame")
        var settings = PlayerSettings()
        settings.statsPath = stats
        let display = HeadlessDisplay(size: PixelSize(width: 320, height: 240), refreshRate: 10, pacing: .vblank)
        for round in 0..<4 {
            let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: [entry], loopMode: .playlist),
                                         settings: settings, logger: CapturedLog().logger)
            player.start()
            defer { _ = player.stop() }
            #expect(waitUntil(20) { player.currentTime.seconds > 0.5 + 0.23 * Double(round) }, "plays")
            player.send(.pause)
            #expect(waitUntil(10) { player.timeControlStatus == .paused })
            // The flip under way when the pause came lands and is written; then nothing moves.
            var last = PlaylistProgramEngineTests.flips(stats).last
            #expect(waitUntil(5) {
                Thread.sleep(forTimeInterval: 0.3)
                let now = PlaylistProgramEngineTests.flips(stats).last
                defer { last = now }
                return now?.pts == last?.pts
            })
            let shown = try #require(last).pts, time = player.currentTime.seconds
            #expect(time >= shown - 1e-6 && time < shown + 0.04 + 1e-6,
                    "round \(round): paused at \(time) s while the screen shows the frame of \(shown) s")
        }
    }

    static func pausedPlayer(on output: VideoOutput, log: CapturedLog) throws -> QueuePlayer {
        let item = ItemConfig(source: .file(try ScreenshotEngineTests.clip()), location: SourceLocation(file: "test", line: 1, column: 1))
        var settings = PlayerSettings()
        settings.playback.startPaused = true
        let player = try QueuePlayer(output: output, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                             loopMode: .playlist),
                                     settings: settings, logger: log.logger)
        player.start()
        #expect(waitUntil(20) { player.framesPresented >= 1 }, "the first frame is shown")
        return player
    }
}
