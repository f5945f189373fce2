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
    final class ReadBackDisplay: VideoOutput, @unchecked Sendable {
        // `readBacks`, `readsFinished` and `holding` under `lock`: the presenter, the waiting
        // threads and the test read them.
        let inner: HeadlessDisplay
        let failing: Bool
        let late: Bool
        /// How long the driver takes to write each picture (a slow driver's writeback).
        let seconds: Double
        private let lock = NSLock()
        private var begun = 0, finished = 0, holding = false
        /// Signalled when a present begins to be held (`holdPresents`), and by the test to let it go.
        let presentHeld = DispatchSemaphore(value: 0), presentLetGo = DispatchSemaphore(value: 0)
        init(size: PixelSize, failing: Bool = false, late: Bool = false, seconds: Double = 0) {
            inner = HeadlessDisplay(size: size)
            self.failing = failing
            self.late = late
            self.seconds = seconds
        }
        var readBacks: Int { lock.withLock { begun } }
        var readsFinished: Int { lock.withLock { finished } }
        /// The next present waits for `presentLetGo` (a presenter busy with a frame).
        func holdNextPresent() { lock.withLock { holding = true } }
        var size: PixelSize { inner.size }
        var refreshInterval: MediaTime { inner.refreshInterval }
        func backBuffer() throws -> PixelBuffer { try inner.backBuffer() }
        func present(_ buffer: PixelBuffer) throws -> Double {
            let hold = lock.withLock { () -> Bool in
                defer { holding = false }
                return holding
            }
            if hold {
                presentHeld.signal()
                presentLetGo.wait()
            }
            return try inner.present(buffer)
        }
        var screenshotSource: String { failing ? "composed by kiosk (the driver refused)" : "read back through a test's writeback" }
        func beginReadBack() throws -> ScreenReadBack? {
            lock.withLock { begun += 1 }
            if failing { throw DRMError.callFailed(what: "reading back", call: "drmModeAtomicCommit", errno: EINVAL) }
            return Picture(display: self)
        }

        final class Picture: ScreenReadBack, @unchecked Sendable {
            let display: ReadBackDisplay
            init(display: ReadBackDisplay) { self.display = display }
            func read(timeout: Double, _ body: (PixelBuffer) -> Void) throws {
                defer { display.lock.withLock { display.finished += 1 } }
                if display.late {
                    // Never comes: the whole wait passes, as a fence's poll would.
                    Thread.sleep(forTimeInterval: timeout)
                    throw DRMError.callFailed(what: "waiting for a test's writeback picture", call: "poll", errno: ETIMEDOUT)
                }
                if display.seconds > 0 { Thread.sleep(forTimeInterval: display.seconds) }
                let size = display.size, stride = size.width * 4
                let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 64)
                defer { memory.deallocate() }
                let picture = PixelBuffer(base: memory, size: size, stride: stride, index: -1)
                picture.fill(PixelRect(size: size), color: 0x00_12_34_56)
                body(picture)
            }
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

    /// The driver's picture does not come (a starved vkms guest): the shot is composed by the
    /// presenter from its own buffers, with one line, within the asker's wait (4 s here, less
    /// than kiosk's usual 5 s for a picture).
    @Test func aReadBackLaterThanItsWaitIsComposedWithOneLine() throws {
        let display = ReadBackDisplay(size: Self.screen, late: true)
        let log = CapturedLog()
        let player = try Self.pausedPlayer(on: display, log: log)
        defer { player.stop() }
        let path = ScreenshotEngineTests.path("shot-readback-late")
        try player.saveScreenshot(to: path, timeout: 4)
        let image = try RGBImage(reading: path)
        #expect(image.pixel(5, 90).isBlack && !image.pixel(160, 90).isBlack, "kiosk's own picture: bars, then the clip")
        #expect(display.readBacks == 1, "composed, not read back again")
        let warnings = log.lines(atLeast: .warning)
        #expect(warnings.count == 1 && warnings[0].contains("reading the display back failed"), "\(warnings)")
    }

    /// The driver writes the picture 2 s after the commit: the presenter flips on meanwhile. It
    /// used to wait for the picture itself, holding every frame (up to 5 s on CI's starved vkms
    /// guests, whose players then missed the 10 s answer and the 2 s stop).
    @Test func aSlowReadBackHoldsNoFrame() throws {
        let display = ReadBackDisplay(size: Self.screen, seconds: 2)
        let player = try Self.pausedPlayer(on: display, log: CapturedLog())
        defer { player.stop() }
        player.send(.play)
        #expect(waitUntil(20) { player.framesPresented >= 3 }, "plays")
        let answered = DispatchSemaphore(value: 0)
        let path = ScreenshotEngineTests.path("shot-readback-slow")
        try? FileManager.default.removeItem(atPath: path)
        let thread = Thread {
            _ = try? player.saveScreenshot(to: path, timeout: 30)
            answered.signal()
        }
        thread.start()
        #expect(waitUntil(10) { display.readBacks == 1 }, "the read-back began")
        let before = player.framesPresented
        #expect(waitUntil(30) { display.readsFinished == 1 }, "the picture came")
        let during = player.framesPresented - before
        // 25 fps for 2 s: 50 frames; a loaded host shows fewer, a held presenter none.
        #expect(during >= 10, "\(during) frames shown while the driver wrote the picture")
        #expect(answered.wait(timeout: .now() + 30) == .success, "the shot was answered")
        let image = try RGBImage(reading: path)
        #expect(image.pixel(160, 90) == RGBImage.Color(0x12, 0x34, 0x56), "the read-back picture: \(image.pixel(160, 90))")
    }

    /// A screenshot asked for while the presenter was busy (a frame's present held here;
    /// a starved vkms guest's commits in CI), whose asker gave up before the presenter came to
    /// it, is not taken: asked again after each timeout, every request still queued read the
    /// screen back in turn, and the presenter stayed held long after.
    @Test func aScreenshotNobodyWaitsForAnyMoreIsNotTaken() throws {
        let display = ReadBackDisplay(size: Self.screen)
        let player = try Self.pausedPlayer(on: display, log: CapturedLog())
        defer { player.stop() }
        display.holdNextPresent()
        player.send(.play)
        #expect(display.presentHeld.wait(timeout: .now() + 20) == .success, "a present is held")
        for n in 0..<2 {
            #expect(throws: ScreenshotError.self) { try player.saveScreenshot(to: ScreenshotEngineTests.path("shot-given-up-\(n)"), timeout: 0.3) }
        }
        display.presentLetGo.signal()
        // A request asked after them is taken: the presenter has passed the two given up.
        try player.saveScreenshot(to: ScreenshotEngineTests.path("shot-after"), timeout: 20)
        let readBacks = display.readBacks
        #expect(readBacks == 1, "the last read back, not the two given up (\(readBacks))")
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
