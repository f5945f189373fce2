import Testing
@testable import KioskPolicy

/// A GIF made of `pictures` 2x2 pictures, with the blocks real files carry (a global and a local
/// colour table, the NETSCAPE loop and graphic control extensions, a comment), ended by the
/// trailer unless `trailer` is false.
func gifBytes(pictures: Int, trailer: Bool = true) -> [UInt8] {
    var bytes = Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80 | 0x01, 0, 0]   // 2x2, a 4-colour global table
    bytes += [UInt8](repeating: 0x40, count: 3 * 4)
    bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
    bytes += [0x21, 0xFE, 5] + Array("hello".utf8) + [0]
    for _ in 0..<pictures {
        bytes += [0x21, 0xF9, 4, 0, 10, 0, 0, 0]                         // 0.1 s delay
        bytes += [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0x80 | 0x00]            // a 2-colour local table
        bytes += [UInt8](repeating: 0x20, count: 3 * 2)
        bytes += [2, 2, 0x44, 0x01, 0]                                   // LZW code size, one sub-block
    }
    if trailer { bytes.append(0x3B) }
    return bytes
}

func gifReading(_ bytes: [UInt8]) -> (Int, Int) -> [UInt8] {
    { offset, count in offset < bytes.count ? Array(bytes[offset..<min(bytes.count, offset + count)]) : [] }
}

@Suite struct StillSignatureTests {
    @Test func picturesAreKnownByTheirFirstBytes() {
        #expect(StillSignature.kind(of: [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8)) == .jpeg)
        #expect(StillSignature.kind(of: [0x89] + Array("PNG\r\n".utf8) + [0x1A, 0x0A, 0, 0, 0, 13]) == .png)
        #expect(StillSignature.kind(of: Array("GIF87a".utf8) + [1, 0, 1, 0]) == .gif)
        #expect(StillSignature.kind(of: Array("II".utf8) + [0x2A, 0, 8, 0, 0, 0]) == .tiff)
        #expect(StillSignature.kind(of: Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8]) == .tiff)
        #expect(StillSignature.kind(of: Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)) == .webp)
        #expect(StillSignature.kind(of: [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]) == .heif)
        #expect(StillSignature.kind(of: [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0]) == .heif)
        #expect(StillSignature.kind(of: [0xFF, 0x0A, 0xFA, 0x7F]) == .jpegXL)
        #expect(StillSignature.kind(of: [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) == .jpegXL)
        let bmp: [UInt8] = Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]
        #expect(StillSignature.kind(of: bmp) == .bmp)
    }

    @Test func videosTextAndShortStartsAreNoPicture() {
        #expect(StillSignature.kind(of: [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0]) == nil)   // MP4
        #expect(StillSignature.kind(of: [0, 0, 0, 0x1C] + Array("ftypmsf1".utf8) + [0, 0, 0, 0]) == nil)   // a HEIF sequence
        #expect(StillSignature.kind(of: [0x1A, 0x45, 0xDF, 0xA3, 0x01]) == nil)                              // Matroska
        #expect(StillSignature.kind(of: [0x47, 0x40, 0x11, 0x10]) == nil)                                    // MPEG-TS
        #expect(StillSignature.kind(of: Array("BMW service notes\n".utf8)) == nil)                          // text, not a BMP
        #expect(StillSignature.kind(of: Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("AVI LIST".utf8)) == nil)
        #expect(StillSignature.kind(of: [0xFF, 0xD8]) == nil)
        #expect(StillSignature.kind(of: []) == nil)
    }

    @Test func aGifsPicturesAreCountedByItsBlocks() {
        #expect(StillSignature.gifPictureCount(read: gifReading(gifBytes(pictures: 1))) == 1)
        #expect(StillSignature.gifPictureCount(read: gifReading(gifBytes(pictures: 2))) == 2)
        #expect(StillSignature.gifPictureCount(read: gifReading(gifBytes(pictures: 40))) == 2)
        // No trailer, or cut inside its picture's data: perhaps an animation still being copied,
        // so no answer (a video, as before).
        #expect(StillSignature.gifPictureCount(read: gifReading(gifBytes(pictures: 1, trailer: false))) == nil)
        #expect(StillSignature.gifPictureCount(read: gifReading(Array(gifBytes(pictures: 1).dropLast(3)))) == nil)
        #expect(StillSignature.gifPictureCount(read: gifReading(Array(gifBytes(pictures: 3).prefix(70)))) == nil)
        // Cut before any picture, or not a GIF: no answer (the name decides, as before).
        #expect(StillSignature.gifPictureCount(read: gifReading(Array(gifBytes(pictures: 1).prefix(20)))) == nil)
        #expect(StillSignature.gifPictureCount(read: gifReading(Array("GIF89a".utf8))) == nil)
        #expect(StillSignature.gifPictureCount(read: gifReading([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 20))) == nil)
    }

    /// A picture whose data runs past the read limit is not walked to its end: counted as an
    /// animation (played as a video, as every GIF was before), after reading at most the limit.
    @Test func aGifPastTheReadLimitIsTakenForAnAnimation() {
        let start = Array(gifBytes(pictures: 1).prefix(while: { $0 != 0x2C })) + [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2]
        var furthest = 0
        let endless: (Int, Int) -> [UInt8] = { offset, count in
            furthest = max(furthest, offset + count)
            return (offset..<(offset + count)).map { $0 < start.count ? start[$0] : 0xFF }   // 255-byte sub-blocks forever
        }
        #expect(StillSignature.gifPictureCount(read: endless) == 2)
        #expect(furthest <= StillSignature.gifReadLimit + (256 << 10))
    }

    @Test func anAnimatedWebPIsToldByItsFlags() {
        var header = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array("VP8X".utf8) + [10, 0, 0, 0, 0x02]
        #expect(StillSignature.isAnimatedWebP(header))
        header[20] = 0x10   // alpha only
        #expect(!StillSignature.isAnimatedWebP(header))
        #expect(!StillSignature.isAnimatedWebP(Array(header.prefix(20))))
        #expect(!StillSignature.isAnimatedWebP(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [10, 0, 0, 0, 0x02]))
    }

    @Test func aUrlsPathExtensionLeavesItsQueryOut() {
        #expect(NetworkURL.pathExtension(of: "https://cms.example/a/Menu.PNG?v=3&token=x") == "png")
        #expect(NetworkURL.pathExtension(of: "http://10.0.0.5:8080/boards/today.jpg#top") == "jpg")
        #expect(NetworkURL.pathExtension(of: "https://cms.example/live/index.m3u8") == "m3u8")
        #expect(NetworkURL.pathExtension(of: "https://cms.example/asset/1234") == "")
        #expect(NetworkURL.pathExtension(of: "https://cms.example.png") == "")          // a host, no path
        #expect(NetworkURL.pathExtension(of: "https://cms.example/dir.v2/file") == "")
        #expect(NetworkURL.pathExtension(of: "https://cms.example/.hidden") == "")
        #expect(NetworkURL.pathExtension(of: "/local/file.png") == "")
    }
}

/// A folder of one GIF whose reads are counted and whose version (`FileFingerprint`) the test
/// sets: what the expander reads of it at each expansion.
private final class CountedGIFFolder: PlaylistFileSystem, @unchecked Sendable {
    let folder: String
    var bytes: [UInt8]
    var version = FileFingerprint(device: 1, inode: 7, size: 0, changed: 1, modified: 1)
    private(set) var reads = 0

    init(folder: String, bytes: [UInt8]) {
        self.folder = folder
        self.bytes = bytes
    }

    func kind(ofItemAt path: String) -> FileKind? { path == folder ? .directory : path == folder + "/logo.gif" ? .file : nil }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] { ["logo.gif"] }
    func fingerprint(atPath path: String) -> FileFingerprint? { version }

    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        reads += 1
        guard offset < bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

@Suite struct GIFPictureCacheTests {
    /// A folder's GIF is read once per version: a second expansion (a reload, a change beside
    /// it in a watched folder) reads none of it; a new version (another file copied over it) is
    /// read and counted again.
    @Test func aGIFIsReadOncePerVersion() {
        let folder = "/gif-cache-\(UInt64.random(in: 0...UInt64.max))"   // the cache is the process's
        let disk = CountedGIFFolder(folder: folder, bytes: gifBytes(pictures: 1))
        let item = ItemConfig(source: .directory(folder), location: SourceLocation(file: "kiosk.conf", line: 1, column: 1))
        #expect(PlaylistExpander(fileSystem: disk).expand([item]).entries.map(\.isStillImage) == [true])
        let firstReads = disk.reads
        #expect(firstReads > 0)
        #expect(PlaylistExpander(fileSystem: disk).expand([item]).entries.map(\.isStillImage) == [true])
        #expect(disk.reads == firstReads + 1)   // the first bytes (what kind of picture), not the walk
        disk.bytes = gifBytes(pictures: 3)
        disk.version.modified += 1
        #expect(PlaylistExpander(fileSystem: disk).expand([item]).entries.map(\.isStillImage) == [false])
    }

    /// A count that could not be made (a GIF still being copied: no trailer yet) is not kept.
    @Test func anUnfinishedGIFIsCountedAgain() {
        let cache = GIFPictureCache()
        let version = FileFingerprint(device: 1, inode: 2, size: 3, changed: 4, modified: 5)
        var counted = 0
        #expect(cache.pictureCount(of: "/a.gif", fingerprint: version, counting: { counted += 1; return nil }) == nil)
        #expect(cache.pictureCount(of: "/a.gif", fingerprint: version, counting: { counted += 1; return 1 }) == 1)
        #expect(cache.pictureCount(of: "/a.gif", fingerprint: version, counting: { counted += 1; return 5 }) == 1)
        #expect(counted == 2)
    }
}
