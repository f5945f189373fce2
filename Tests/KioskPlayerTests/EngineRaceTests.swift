import KioskCore
import KioskDisplay
import KioskMedia
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// `kiosk bench`'s race is the engine playing untimed (decode thread, frame queue, presenter):
/// it must still draw every frame, in order, exactly as a serial decode-and-draw does, and stop
/// cleanly when told to.
@Suite struct EngineRaceTests {
    static let logger = Logger(label: "race-test")
    static let size = PixelSize(width: 640, height: 400)

    /// testsrc2 changes every frame (a counter, moving shapes), so a frame drawn out of order
    /// or twice shows in the pixels.
    static func clip() throws -> String {
        try MediaFixtures.clip("race.mp4", ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=2",
                                            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    }

    /// The screen after drawing the first `count` frames one by one on this thread.
    static func serialPicture(of clip: String, frames count: Int) throws -> [UInt8] {
        let reader = try VideoFrameReader(asset: try Asset(source: clip))
        let display = HeadlessDisplay(size: size, paced: false)
        let scaler = Scaler()
        for _ in 0..<count {
            let frame = try #require(try reader.nextFrame())
            let buffer = try display.backBuffer()
            try scaler.draw(frame, layout: Scaler.layout(for: frame, on: size, gravity: .fit), into: buffer)
            _ = try display.present(buffer)
        }
        return try picture(of: display)
    }

    static func picture(of display: HeadlessDisplay) throws -> [UInt8] {
        let front = try #require(display.frontBuffer)
        let bytes = front.stride * front.size.height
        return Array(UnsafeRawBufferPointer(start: front.base, count: bytes))
    }

    @Test func drawsEveryFrameLikeTheSerialLoop() throws {
        let clip = try Self.clip()
        let display = HeadlessDisplay(size: Self.size, paced: false)
        let result = try EngineRace.run(media: clip, display: display, gravity: .fit, threads: 0, limit: nil, logger: Self.logger)
        #expect(result.frames == 50)
        #expect(result.firstFrameSeconds.map { $0 > 0 && $0 <= result.seconds } == true)
        #expect(try Self.picture(of: display) == Self.serialPicture(of: clip, frames: 50))
    }

    /// A limit stops the race while the decode thread is still ahead: it returns (no hang on a
    /// full queue) with the limit's frame on screen.
    @Test func stopsAtTheLimit() throws {
        let clip = try Self.clip()
        let display = HeadlessDisplay(size: Self.size, paced: false)
        let result = try EngineRace.run(media: clip, display: display, gravity: .fit, threads: 0, limit: 7, logger: Self.logger)
        #expect(result.frames == 7)
        #expect(try Self.picture(of: display) == Self.serialPicture(of: clip, frames: 7))
        #expect(try Self.picture(of: display) != Self.serialPicture(of: clip, frames: 8))
    }

    @Test func aFileThatCannotOpenThrowsItsReason() throws {
        let garbage = try MediaFixtures.file("race-garbage.mp4", bytes: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let display = HeadlessDisplay(size: Self.size, paced: false)
        #expect(throws: MediaError.self) {
            try EngineRace.run(media: garbage, display: display, gravity: .fit, threads: 0, limit: nil, logger: Self.logger)
        }
    }
}
