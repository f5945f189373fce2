import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func paths(_ expansion: PlaylistExpansion) -> [String] { expansion.entries.map(\.media.description) }

@Suite("Playlist expansion")
struct PlaylistExpansionTests {
    let disk = FakeFileSystem(files: [
        "/media/clip10.mp4", "/media/clip2.mp4", "/media/Clip1.MKV", "/media/poster.png", "/media/notes.txt",
        "/media/.hidden.mp4", "/media/._clip3.mp4", "/media/sub/deep.mp4",
        "/shows/a/x.mp4", "/shows/b/y.mp4", "/shows/b/z.webm", "/shows/c.mp4/inner.mp4",
    ], emptyDirectories: ["/empty"], unreadable: ["/locked"])

    /// Every image reader of FFmpeg's kiosk lists is a still, in any letter case (a `.tif` was
    /// played as a one-frame video: up for a frame, not `image_duration`).
    @Test func tiffAndJpegXLAreStills() {
        let scans = FakeFileSystem(files: ["/scans/a.TIF", "/scans/b.tiff", "/scans/c.jxl", "/scans/d.mp4"])
        let expansion = PlaylistExpander(fileSystem: scans).expand([.written(.directory("/scans"))])
        #expect(paths(expansion) == ["/scans/a.TIF", "/scans/b.tiff", "/scans/c.jxl", "/scans/d.mp4"])
        #expect(expansion.entries.map(\.isStillImage) == [true, true, true, false])
    }

    /// Where the name cannot say, the bytes do: a file with no media extension is a still when
    /// it begins as a picture, a GIF when it holds one picture; a URL by its path's extension.
    @Test func stillsAreKnownByTheirBytesWhereTheNameCannotSay() {
        var show = FakeFileSystem(files: ["/show/poster", "/show/clip", "/show/logo.gif", "/show/anim.GIF", "/show/broken.gif",
                                          "/show/menu.dat", "/show/empty", "/show/photo.gif", "/show/camera.mjpeg", "/show/copying.gif",
                                          "/show/banner.webp", "/show/moving.webp"])
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0, 0x20] + Array("Exif".utf8)
        show.contents = ["/show/poster": jpeg, "/show/clip": [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0],
                         "/show/logo.gif": gifBytes(pictures: 1), "/show/anim.GIF": gifBytes(pictures: 3),
                         "/show/menu.dat": gifBytes(pictures: 1), "/show/photo.gif": jpeg, "/show/camera.mjpeg": jpeg,
                         "/show/copying.gif": Array(gifBytes(pictures: 3).prefix(70)),
                         "/show/banner.webp": Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x10],
                         "/show/moving.webp": Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x12]]
        let files = ["poster", "clip", "logo.gif", "anim.GIF", "broken.gif", "menu.dat", "empty", "photo.gif", "camera.mjpeg",
                     "copying.gif", "banner.webp", "moving.webp"].map { ItemConfig.written(.file("/show/" + $0)) }
        let urls = ["https://cms.example/menu.png?v=1", "https://cms.example/a.HEIC", "https://cms.example/live.m3u8",
                    "https://cms.example/asset/7"].map { ItemConfig.written(.url($0)) }
        let expansion = PlaylistExpander(fileSystem: show).expand(files + urls)
        #expect(expansion.entries.map(\.isStillImage) == [true, false, true, false, false, true, false, true, false, false,
                                                           true, false, true, false, false, false])
        // Animations by their bytes as by their names: they loop for a `duration`.
        #expect(expansion.entries.map(\.isAnimatedPicture) == [false, false, false, true, true, false, false, false, false, true,
                                                                false, true, false, false, false, false])
    }

    /// Cameras', phones' and browsers' names for what FFmpeg reads are listed from folders.
    @Test func camerasAndBrowsersNamesAreListed() {
        let stick = FakeFileSystem(files: ["/stick/00001.MTS", "/stick/clip.3gp", "/stick/menu.jfif", "/stick/news.mxf",
                                           "/stick/VTS_01_1.VOB", "/stick/notes.txt"])
        let expansion = PlaylistExpander(fileSystem: stick).expand([.written(.directory("/stick"))])
        #expect(paths(expansion) == ["/stick/00001.MTS", "/stick/clip.3gp", "/stick/menu.jfif", "/stick/news.mxf",
                                     "/stick/VTS_01_1.VOB"])
        #expect(expansion.entries.map(\.isStillImage) == [false, false, true, false, false])
    }

    @Test func directoryListsMediaFilesInNaturalOrder() {
        let expansion = PlaylistExpander(fileSystem: disk).expand([.written(.directory("/media"))])
        #expect(paths(expansion) == ["/media/Clip1.MKV", "/media/clip2.mp4", "/media/clip10.mp4", "/media/poster.png"])
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.entries.map(\.isStillImage) == [false, false, false, true])
        #expect(expansion.entries.map(\.title) == ["Clip1.MKV", "clip2.mp4", "clip10.mp4", "poster.png"])
    }

    @Test func globMatchesComponentByComponent() {
        let expander = PlaylistExpander(fileSystem: disk)
        #expect(paths(expander.expand([.written(.glob("/media/clip*.mp4"))])) == ["/media/clip2.mp4", "/media/clip10.mp4"])
        #expect(paths(expander.expand([.written(.glob("/shows/*/*"))]))
                == ["/shows/a/x.mp4", "/shows/b/y.mp4", "/shows/b/z.webm", "/shows/c.mp4/inner.mp4"])
        #expect(paths(expander.expand([.written(.glob("/media/clip?.mp4"))])) == ["/media/clip2.mp4"])
        #expect(paths(expander.expand([.written(.glob("/media/[Cc]lip1.*"))])) == ["/media/Clip1.MKV"])
        // "*" does not match a leading dot, like the shell; a directory named c.mp4 is no file.
        #expect(paths(expander.expand([.written(.glob("/media/*clip3.mp4"))])).isEmpty)
        #expect(paths(expander.expand([.written(.glob("/shows/*.mp4"))])).isEmpty)
    }

    @Test func missingAndEmptySourcesAreDiagnosticsNotFailures() {
        let items: [ItemConfig] = [
            .written(.file("/media/gone.mp4"), line: 3), .written(.directory("/empty"), line: 4),
            .written(.directory("/nowhere"), line: 5), .written(.glob("/media/*.avi"), line: 6),
            .written(.directory("/locked"), line: 7), .written(.file("/media/clip2.mp4"), line: 8),
        ]
        let expansion = PlaylistExpander(fileSystem: disk).expand(items)
        #expect(paths(expansion) == ["/media/clip2.mp4"])
        #expect(expansion.entries.first?.itemIndex == 5)
        let messages = expansion.diagnostics.map(\.description)
        #expect(messages.count == 5)
        #expect(messages[0] == "kiosk.conf:3:5: file '/media/gone.mp4' does not exist; skipped until it appears")
        #expect(messages[1].hasPrefix("kiosk.conf:4:5: directory '/empty' holds no media files; expected files ending in 3g2, 3gp, asf, avi, avif, bmp"))
        #expect(messages[2] == "kiosk.conf:5:5: directory '/nowhere' does not exist; skipped until it appears")
        #expect(messages[3] == "kiosk.conf:6:5: '/media/*.avi' matches no media files; skipped")
        #expect(messages[4] == "kiosk.conf:7:5: cannot list directory '/locked': permission denied; skipped")
    }

    @Test func urlsAndItemOptionsPassThrough() {
        var options = ItemConfig.written(.url("https://example.com/live.m3u8"))
        options.title = "Live"
        options.loopCount = 3
        var clip = ItemConfig.written(.file("/media/clip2.mp4"))
        clip.gravity = .fill
        let expansion = PlaylistExpander(fileSystem: disk).expand([options, clip])
        #expect(expansion.entries.map(\.media) == [.url("https://example.com/live.m3u8"), .file("/media/clip2.mp4")])
        #expect(expansion.entries.map(\.title) == ["Live", "clip2.mp4"])
        #expect(expansion.entries.map(\.repeatCount) == [3, 1])
        #expect(expansion.entries[1].item.gravity == .fill)
    }

    @Test(arguments: [
        (["clip10", "clip2", "clip1"], ["clip1", "clip2", "clip10"]),
        (["b", "A", "a2", "a10", "a02"], ["A", "a02", "a2", "a10", "b"]),   // equal numbers: plain order decides
        (["x-10-b", "x-10-a", "x-9"], ["x-9", "x-10-a", "x-10-b"]),
        (["2.mp4", "10.mp4", "a.mp4", "1.mp4"], ["1.mp4", "2.mp4", "10.mp4", "a.mp4"]),
        (["v99999999999999999999999", "v100000000000000000000000"], ["v99999999999999999999999", "v100000000000000000000000"]),
    ])
    func naturalOrder(_ input: [String], _ expected: [String]) {
        #expect(NaturalOrder.sorted(input) == expected)
    }

    @Test func realDirectoryAndGlob() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-playlist-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/clips/sub", withIntermediateDirectories: true)
        for name in ["clip10.mp4", "clip9.mp4", "still.JPG", "readme.txt", ".hidden.mp4", "sub/deep.mp4"] {
            #expect(FileManager.default.createFile(atPath: root + "/clips/" + name, contents: Data([0])))
        }
        let expander = PlaylistExpander()
        let directory = expander.expand([.written(.directory(root + "/clips"))])
        #expect(paths(directory) == [root + "/clips/clip9.mp4", root + "/clips/clip10.mp4", root + "/clips/still.JPG"])
        #expect(directory.entries.last?.isStillImage == true)
        let glob = expander.expand([.written(.glob(root + "/clips/*/*.mp4")), .written(.glob(root + "/clips/clip1?.mp4"))])
        #expect(paths(glob) == [root + "/clips/sub/deep.mp4", root + "/clips/clip10.mp4"])
        try FileManager.default.removeItem(atPath: root + "/clips/clip9.mp4")
        let afterRemoval = expander.expand([.written(.file(root + "/clips/clip9.mp4")), .written(.directory(root + "/clips/"))])
        #expect(paths(afterRemoval) == [root + "/clips/clip10.mp4", root + "/clips/still.JPG"])
        #expect(afterRemoval.diagnostics.map(\.message) == ["file '\(root)/clips/clip9.mp4' does not exist; skipped until it appears"])
    }
}
