import KioskCore
import KioskTestSupport
import Testing
@testable import KioskPolicy

/// Pictures FFmpeg writes, read back as the expander reads them (`LocalFileSystem`): each kind
/// is known by its first bytes whatever its name, and a GIF's pictures are counted.
@Suite struct StillSignatureMediaTests {
    private func kind(_ name: String, _ arguments: [String]) throws -> StillSignature.Kind? {
        let path = try MediaFixtures.clip(name, ["-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1"] + arguments)
        return StillSignature.kind(of: LocalFileSystem().bytes(atPath: path, offset: 0, count: StillSignature.leadingByteCount))
    }

    @Test func eachPictureFileIsKnownByItsBytes() throws {
        #expect(try kind("sig.jpg", ["-c:v", "mjpeg", "-f", "image2"]) == .jpeg)
        #expect(try kind("sig.png", ["-f", "image2"]) == .png)
        #expect(try kind("sig.bmp", ["-f", "image2"]) == .bmp)
        #expect(try kind("sig.tif", ["-f", "image2"]) == .tiff)
        #expect(try kind("sig.webp", ["-c:v", "libwebp"]) == .webp)
        #expect(try kind("sig.gif", []) == .gif)
        #expect(try kind("sig.mp4", ["-c:v", "libx264"]) == nil)
        #expect(try kind("sig.ts", ["-c:v", "mpeg2video"]) == nil)
    }

    private func gifPictures(_ name: String, frames: Int) throws -> Int? {
        let path = try MediaFixtures.clip(name, ["-f", "lavfi", "-i", "testsrc2=size=120x80:rate=5", "-frames:v", "\(frames)"])
        let disk = LocalFileSystem()
        return StillSignature.gifPictureCount { disk.bytes(atPath: path, offset: $0, count: $1) }
    }

    @Test func aGifsPicturesAreCounted() throws {
        #expect(try gifPictures("one.gif", frames: 1) == 1)
        #expect(try gifPictures("three.gif", frames: 3) == 2)   // counted up to 2: an animation
    }

    /// The expander's answer for real files: a one-picture GIF and a JPEG named without an
    /// extension are stills, an animated GIF and an extensionless MP4 are not.
    @Test func theExpanderAsksTheBytesWhereTheNameCannotSay() throws {
        let still = try MediaFixtures.clip("poster.gif", ["-f", "lavfi", "-i", "testsrc2=size=120x80", "-frames:v", "1"])
        let moving = try MediaFixtures.clip("moving.gif", ["-f", "lavfi", "-i", "testsrc2=size=120x80:rate=5", "-frames:v", "4"])
        let photo = try MediaFixtures.clip("photo-no-extension", ["-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1",
                                                                  "-c:v", "mjpeg", "-f", "image2"])
        let clip = try MediaFixtures.clip("clip-no-extension", ["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=10",
                                                                "-frames:v", "5", "-c:v", "libx264", "-f", "mp4"])
        let items = [still, moving, photo, clip].map {
            ItemConfig(source: .file($0), location: SourceLocation(file: "kiosk.conf", line: 1, column: 1))
        }
        let entries = PlaylistExpander().expand(items).entries
        #expect(entries.map(\.isStillImage) == [true, false, true, false])
    }
}
