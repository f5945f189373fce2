import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// Through the whole engine (playlist, item pipeline, presenter, headless screen): a photo tagged
/// EXIF 5 (mirror and turn) stands upright on screen, as a portrait between bars, at the
/// reduced size the screen lets it decode at. KioskMediaTests check all 8 values and formats.
@Suite struct UprightStillEngineTests {
    /// 1600x1200, split at (512, 384): red top-left, green top-right, blue bottom-left, yellow
    /// bottom-right; tagged 5 (transpose) with exiftool.
    static func taggedPhoto() throws -> String {
        let filter = "color=c=0xFF0000:s=1600x1200:d=1,drawbox=x=512:y=0:w=1088:h=384:color=0x00FF00:t=fill," +
            "drawbox=x=0:y=384:w=512:h=816:color=0x0000FF:t=fill,drawbox=x=512:y=384:w=1088:h=816:color=0xFFFF00:t=fill"
        let plain = try MediaFixtures.clip("engine-quadrants.jpg", ["-f", "lavfi", "-i", filter, "-frames:v", "1",
                                                                    "-q:v", "2", "-pix_fmt", "yuvj444p"])
        let tagged = MediaFixtures.directory.appendingPathComponent("engine-quadrants-exif5.jpg").path
        if !FileManager.default.fileExists(atPath: tagged) {
            try FileManager.default.copyItem(atPath: plain, toPath: tagged)
            let result = try MediaFixtures.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=5", tagged])
            guard result.status == 0 else { throw FixtureError("exiftool: \(result.stderr)") }
        }
        return tagged
    }

    @Test func mirroredAndTurnedPhotoStandsUprightOnScreen() throws {
        try #require((try? MediaFixtures.run("exiftool", ["-ver"]).status) == 0, "exiftool is missing (deploy/setup)")
        let item = ItemConfig(source: .file(try Self.taggedPhoto()), location: SourceLocation(file: "test", line: 1, column: 1))
        let display = HeadlessDisplay(size: PixelSize(width: 320, height: 240))
        let player = try QueuePlayer(output: display, playlist: PlaylistCursor(entries: PlaylistExpander().expand([item]).entries,
                                                                              loopMode: .playlist),
                                     settings: PlayerSettings(), logger: CapturedLog().logger)
        player.start()
        defer { player.stop() }
        #expect(waitUntil(20) { player.framesPresented >= 1 }, "the photo is shown")
        let front = try #require(display.frontBuffer)
        func color(_ x: Int, _ y: Int) -> RGBImage.Color {
            let pixel = front.base.advanced(by: y * front.stride + x * 4).assumingMemoryBound(to: UInt8.self)
            return RGBImage.Color(Int(pixel[2]), Int(pixel[1]), Int(pixel[0]))
        }
        // Upright it is 1200x1600 (transposed: red top-left, blue top-right, green bottom-left),
        // fitted into 320x240 as 180x240 from x = 70: black bars either side.
        #expect(color(30, 120).isBlack && color(290, 120).isBlack, "portrait between bars")
        #expect(color(85, 15).isNear(.red), "\(color(85, 15))")
        #expect(color(190, 30).isNear(.blue), "\(color(190, 30))")
        #expect(color(85, 150).isNear(.green), "\(color(85, 150))")
        #expect(color(190, 150).isNear(.yellow), "\(color(190, 150))")
    }
}
