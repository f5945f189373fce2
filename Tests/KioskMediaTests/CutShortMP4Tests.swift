import Foundation
import KioskTestSupport
import Testing
@testable import KioskMedia

/// An MP4 writes its index (the moov box) last unless it is made for streaming: a copy, upload
/// or recording cut short has none, and FFmpeg refuses it as invalid data, which kiosk said as
/// "not a media file FFmpeg can read (unknown format or damaged data)" of what is plainly an MP4.
@Suite struct CutShortMP4Tests {
    @Test func anMP4WithoutItsIndexIsSaidToBeCutShort() throws {
        let whole = try MediaFixtures.clip("index-last.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=2",
                                                             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = try MediaFixtures.file("index-last-cut.mp4", bytes: Array(bytes.prefix(bytes.count / 2)))
        let error = StillSizeLimitMediaTests.mediaError { try Asset(source: cut) }
        #expect(error?.reason == "an MP4/MOV without its index (no moov box): the file is cut short, a copy, download or "
                + "recording that did not finish; copy it again")
        // Text named .mp4 is no MP4 at all: said as before.
        let text = try MediaFixtures.file("words.mp4", bytes: Array("hello, this is not a video\n".utf8))
        #expect(StillSizeLimitMediaTests.mediaError { try Asset(source: text) }?.reason
                == "not a media file FFmpeg can read (unknown format or damaged data)")
    }

    static func box(_ type: String, payload: Int, largeSize: Bool = false) -> [UInt8] {
        func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        if largeSize { return bigEndian(1, 4) + Array(type.utf8) + bigEndian(UInt64(16 + payload), 8) + [UInt8](repeating: 0, count: payload) }
        return bigEndian(UInt64(8 + payload), 4) + Array(type.utf8) + [UInt8](repeating: 0, count: payload)
    }

    /// The top-level boxes as written: an index anywhere is no missing index; a 64-bit size is
    /// followed; a box cut off, or one running to the end, ends the walk without an index.
    @Test func theBoxesAreWalkedByTheirSizes() throws {
        func missing(_ name: String, _ bytes: [UInt8]) throws -> Bool { MP4Index.isMissing(path: try MediaFixtures.file(name, bytes: bytes)) }
        let ftyp = Self.box("ftyp", payload: 16)
        #expect(try !missing("boxes-whole.mp4", ftyp + Self.box("mdat", payload: 100) + Self.box("moov", payload: 40)))
        #expect(try !missing("boxes-faststart.mp4", ftyp + Self.box("moov", payload: 40) + Self.box("mdat", payload: 100)))
        #expect(try missing("boxes-cut.mp4", ftyp + Array(Self.box("mdat", payload: 100).prefix(50))))
        #expect(try missing("boxes-large-cut.mp4", ftyp + Array(Self.box("mdat", payload: 1000, largeSize: true).prefix(300))))
        #expect(try !missing("boxes-large-whole.mp4", ftyp + Self.box("mdat", payload: 100, largeSize: true) + Self.box("moov", payload: 8)))
        #expect(try missing("boxes-to-end.mp4", ftyp + [0, 0, 0, 0] + Array("mdat".utf8) + [UInt8](repeating: 7, count: 64)))
        #expect(try !missing("boxes-no-ftyp.mp4", Self.box("jpeg", payload: 100)), "not an MP4 by its first box")
        #expect(try missing("boxes-quicktime.mov", Self.box("wide", payload: 0) + Array(Self.box("mdat", payload: 100).prefix(60))),
                "an older QuickTime file starts without ftyp")
        // A 64-bit size near the top of UInt64 (a hostile file): cut off, not an overflow.
        let huge: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0] + [UInt8](repeating: 0, count: 32)
        #expect(try missing("boxes-huge-size.mp4", ftyp + huge))
        #expect(try !missing("boxes-garbage.mp4", ftyp + [0, 0, 0, 3] + Array("junk".utf8) + [1, 2, 3, 4]), "a size under 8 is damage")
        #expect(!MP4Index.isMissing(path: "/nonexistent/clip.mp4"))
    }
}
