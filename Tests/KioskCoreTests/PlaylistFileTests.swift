import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// Playlist files (`.m3u`, `.m3u8`) as items (`.pls`, `.xspf`, `.wpl`: OtherPlaylistFileTests): what VLC, Winamp and a CMS's export write.
@Suite("Playlist files")
struct PlaylistFileTests {
    @Test func linesTitlesAndSecondsAreRead() throws {
        let text = "\u{FEFF}#EXTM3U\r\n#PLAYLIST:Lobby\r\n\r\n#EXTINF:12.5,Lunch menu\r\nmenu.png\r\n"
            + "#EXTINF:-1 tvg-name=\"a, b\" group-title=\"x\",News, at noon\r\nrtsp://cam/1\r\n# a comment\r\nclips/a.mp4"
        let playlist = try #require(PlaylistFile.parse(Array(text.utf8), as: .m3u))
        #expect(playlist.entries == [
            PlaylistFile.Entry(location: "menu.png", title: "Lunch menu", seconds: 12.5, line: 5),
            PlaylistFile.Entry(location: "rtsp://cam/1", title: "News, at noon", seconds: nil, line: 7),
            PlaylistFile.Entry(location: "clips/a.mp4", title: nil, seconds: nil, line: 9),
        ])
    }

    /// An HLS stream's playlist is FFmpeg's to play; a Winamp-era file in Latin-1 keeps its é.
    @Test func streamsAndLatin1() throws {
        #expect(PlaylistFile.parse(Array("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nseg0.ts\n".utf8), as: .m3u) == nil)
        #expect(PlaylistFile.parse(Array("#EXTM3U\n#ext-x-stream-inf:BANDWIDTH=1\nlow.m3u8\n".utf8), as: .m3u) == nil)
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".mp4\n".utf8)
        #expect(try #require(PlaylistFile.parse(latin1, as: .m3u)).entries.map(\.location) == ["café.mp4"])
        #expect(try #require(PlaylistFile.parse([], as: .m3u)).entries.isEmpty)
    }

    @Test func entriesPlayInOrderWithTheirTitles() {
        let files = ["/show/menu.png", "/show/clips/a.mp4", "/show/clips/b c.mp4", "/other/d.mkv", "/show/Media/e.mp4",
                     "/show/more/f.mp4", "/show/more/g.jpg"]
        let show = FakeFileSystem(files: files, contents: [
            "/show/list.m3u": "#EXTM3U\n#EXTINF:8,Menu\nmenu.png\nclips/a.mp4\nfile:///show/clips/b%20c.mp4\n/other/d.mkv\n"
                + "Media\\e.mp4\n#EXTINF:-1,Camera\nrtsp://cam.local/1\nmore/\n",
        ])
        var options = ItemConfig.written(.file("/show/list.m3u"), line: 7)
        options.title = "From the CMS"
        let expansion = PlaylistExpander(fileSystem: show).expand([options])
        #expect(expansion.entries.map(\.media.description) == ["/show/menu.png", "/show/clips/a.mp4", "/show/clips/b c.mp4",
                                                               "/other/d.mkv", "/show/Media/e.mp4", "rtsp://cam.local/1",
                                                               "/show/more/f.mp4", "/show/more/g.jpg"])
        #expect(expansion.entries.map(\.title) == ["Menu", "From the CMS", "From the CMS", "From the CMS", "From the CMS", "Camera",
                                                   "From the CMS", "From the CMS"])
        #expect(expansion.entries.allSatisfy { $0.itemIndex == 0 })
        // #EXTINF's seconds are a picture's duration; a video's own length wins; a stream's -1 is no time.
        #expect(expansion.entries.map { $0.item.duration?.seconds } == [8, nil, nil, nil, nil, nil, nil, nil])
        #expect(expansion.entries.map(\.isStillImage) == [true, false, false, false, false, false, false, true])
        #expect(expansion.diagnostics.isEmpty)
    }

    /// The item's own `duration` wins over the file's seconds.
    @Test func theItemsDurationWins() {
        let show = FakeFileSystem(files: ["/show/menu.png"], contents: ["/show/list.m3u8": "#EXTINF:8,Menu\nmenu.png\n"])
        var options = ItemConfig.written(.file("/show/list.m3u8"))
        options.duration = MediaTime(seconds: 3)
        #expect(PlaylistExpander(fileSystem: show).expand([options]).entries.map { $0.item.duration?.seconds } == [3])
    }

    /// Each line that gives nothing is one message naming the file, the line and why; the rest plays.
    @Test func badLinesAreSaidOneByOne() {
        let show = FakeFileSystem(files: ["/show/a.mp4"], contents: [
            "/show/list.m3u": "gone.mp4\nC:\\Media\\b.mp4\n\\\\server\\share\\c.mp4\nfile:///D:/d.mp4\nfile://nas/e.mp4\n"
                + "rtps://cam/1\na.mp4\nempty/\n",
        ])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/list.m3u"), line: 4)])
        #expect(expansion.entries.map(\.media.description) == ["/show/a.mp4"])
        let messages = expansion.diagnostics.map(\.description)
        #expect(messages.count == 7)
        #expect(messages[0] == "kiosk.conf:4:5: playlist file '/show/list.m3u' line 1: file '/show/gone.mp4' does not exist; "
                + "skipped until it appears")
        #expect(messages[1].contains("line 2: 'C:\\Media\\b.mp4' is a Windows path"))
        #expect(messages[2].contains("line 3: '\\\\server\\share\\c.mp4' is a Windows path"))
        #expect(messages[3].contains("line 4: 'file:///D:/d.mp4' is a Windows path"))
        #expect(messages[4].contains("line 5: 'file://nas/e.mp4' names a file on another computer"))
        #expect(messages[5].contains("line 6: the URL 'rtps://cam/1' cannot be opened: 'rtps' is not a scheme kiosk plays"))
        #expect(messages[6].contains("line 8: file '/show/empty' does not exist"))
    }

    /// Playlist files may list playlist files; one that lists itself (or an earlier one) is a
    /// loop said once, not followed; an HLS playlist among the lines is a stream.
    @Test func nestedFilesLoopsAndStreams() {
        let show = FakeFileSystem(files: ["/show/a.mp4", "/show/b.mp4", "/show/sub/c.mp4"], contents: [
            "/show/main.m3u": "a.mp4\nsub/inner.m3u8\nlive.m3u8\nb.mp4\n",
            "/show/sub/inner.m3u8": "#EXTINF:5,See\nc.mp4\n../main.m3u\n",
            "/show/live.m3u8": "#EXTM3U\n#EXT-X-TARGETDURATION:4\nseg.ts\n",
        ])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/main.m3u"))])
        #expect(expansion.entries.map(\.media.description) == ["/show/a.mp4", "/show/sub/c.mp4", "/show/live.m3u8", "/show/b.mp4"])
        #expect(expansion.entries[1].title == "See")
        #expect(expansion.diagnostics.map(\.message) == [
            "playlist file '/show/sub/inner.m3u8' line 3: '/show/main.m3u' is a playlist file that lists this one (a loop); skipped",
        ])
        // An item that is itself a stream's playlist is one entry, as before.
        #expect(PlaylistExpander(fileSystem: show).expand([.written(.file("/show/live.m3u8"))]).entries.map(\.media.description)
                == ["/show/live.m3u8"])
    }

    @Test func anEmptyFileIsSaid() {
        let show = FakeFileSystem(files: [], contents: ["/show/empty.m3u": "", "/show/comments.m3u": "#EXTM3U\n# nothing yet\n"])
        let expander = PlaylistExpander(fileSystem: show)
        #expect(expander.expand([.written(.file("/show/empty.m3u"))]).diagnostics.map(\.message)
                == ["playlist file '/show/empty.m3u' is empty (or cannot be read); skipped"])
        #expect(expander.expand([.written(.file("/show/comments.m3u"))]).diagnostics.map(\.message)
                == ["playlist file '/show/comments.m3u' lists no media (only # lines); skipped"])
    }

    /// A long list of missing files is ten lines and a count, not thousands.
    @Test func manyBadLinesAreCounted() {
        let text = (1...25).map { "gone\($0).mp4" }.joined(separator: "\n")
        let show = FakeFileSystem(files: [], contents: ["/show/list.m3u": text])
        let messages = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/list.m3u"))]).diagnostics.map(\.message)
        #expect(messages.count == 11)
        #expect(messages.last == "15 more problems with playlist file '/show/list.m3u' (or the playlist files it lists); those lines are skipped")
    }

    /// What a hostile or broken file holds costs a bounded amount and cannot crash kiosk: a
    /// duration past any clock, files listing the same file thousands of times at every level
    /// (the work would be 1,000^4), a line megabytes long, a file past 4 MiB.
    @Test func hostileFilesAreBounded() throws {
        let show = FakeFileSystem(files: ["/show/menu.png"], contents: ["/show/a.m3u": "#EXTINF:1e300,Big\nmenu.png\n#EXTINF:1e13,x\nmenu.png\n"])
        #expect(PlaylistExpander(fileSystem: show).expand([.written(.file("/show/a.m3u"))]).entries.map { $0.item.duration } == [nil, nil])
        // Fan-out: each level lists the next 1,000 times; the last lists nothing.
        var fan: [String: String] = [:]
        for level in 0..<4 { fan["/fan/\(level).m3u"] = String(repeating: "\(level + 1).m3u\n", count: 1000) }
        fan["/fan/4.m3u"] = "# nothing\n"
        let listing = try #require(PlaylistExpander(fileSystem: FakeFileSystem(files: [], contents: fan)).playlistFile("/fan/0.m3u"))
        #expect(listing.files.count == 5)   // each file read once
        #expect(listing.stopped && listing.problems.last?.contains("50000 lines listed; the rest are not read") == true)
        // A long line is shortened in its message; control characters are escaped.
        let long = FakeFileSystem(files: [], contents: ["/show/long.m3u": String(repeating: "x", count: 100_000) + "\u{1B}[2J\n"])
        let message = try #require(PlaylistExpander(fileSystem: long).expand([.written(.file("/show/long.m3u"))]).diagnostics.first?.message)
        #expect(message.count < 400 && message.contains("..."))
        let escape = FakeFileSystem(files: [], contents: ["/show/esc.m3u": "a\u{1B}[2J.mp4\n"])
        #expect(PlaylistExpander(fileSystem: escape).expand([.written(.file("/show/esc.m3u"))]).diagnostics.first?.message
                .contains("a\\u{1b}[2J.mp4") == true)
        // Past 4 MiB: the entries before play, the line cut off is left out, and it is said.
        let line = "menu.png\r\n"
        let big = FakeFileSystem(files: ["/show/menu.png"], contents: ["/show/big.m3u": String(repeating: line, count: (4 << 20) / line.count + 10)])
        let cut = PlaylistExpander(fileSystem: big).expand([.written(.file("/show/big.m3u"))])
        #expect(cut.entries.count == PlaylistExpander.playlistFileEntryLimit)
        #expect(cut.diagnostics.contains { $0.message.contains("longer than 4 MiB") })
    }

    /// Windows' code page 1252 (what an `.m3u` from Winamp holds), with CRLF; Windows paths
    /// in every form are said, not read as this box's.
    @Test func windowsFiles() throws {
        let bytes: [UInt8] = Array("#EXTINF:5,".utf8) + [0x93] + Array("Caf".utf8) + [0xE9, 0x94, 0x0D, 0x0A] + Array("a".utf8) + [0x96]
            + Array("b.mp4\r\n".utf8)
        let playlist = try #require(PlaylistFile.parse(bytes, as: .m3u))
        #expect(playlist.entries == [PlaylistFile.Entry(location: "a\u{2013}b.mp4", title: "\u{201C}Café\u{201D}", seconds: 5, line: 2)])
        for line in ["\\Media\\a.mp4", "file://C:/Media/a.mp4", "D:/a.mp4"] {
            #expect(PlaylistExpander.resolvePlaylistLine(line, in: "/show", fileSystem: FakeFileSystem(files: [], contents: [:]))
                    == .problem("'\(line)' is a Windows path, not one on this box: write the names relative to the playlist file "
                                + "(Media\\clip.mp4 or Media/clip.mp4) and keep the files beside it"), "\(line)")
        }
    }

    /// A line with `[` or `*` is a name, not a pattern; a backslash in a real name is kept.
    @Test func linesAreNamesNotPatterns() {
        let show = FakeFileSystem(files: ["/show/Clip [HD].mp4", "/show/odd\\name.mp4"], contents: ["/show/list.m3u": "Clip [HD].mp4\nodd\\name.mp4\n"])
        #expect(PlaylistExpander(fileSystem: show).expand([.written(.file("/show/list.m3u"))]).entries.map(\.media.description)
                == ["/show/Clip [HD].mp4", "/show/odd\\name.mp4"])
    }

    /// The watcher looks at the folders the file and its entries are in, so an edit of the
    /// file or a listed file that arrives changes the playlist without a restart; folders not
    /// there are left until they are (asked again every second).
    @Test func itsFoldersAreWatched() {
        let show = FakeFileSystem(files: ["/show/a.mp4", "/media/b.mp4", "/media/clips/c.mp4"], contents: [
            "/show/list.m3u": "a.mp4\n/media/b.mp4\n/media/clips/\n/later/d.mp4\n/nowhere/x/e.mp4\n",
        ])
        #expect(WatchedFolders.directories(of: [.written(.file("/show/list.m3u"))], fileSystem: show)
                == ["/show", "/media", "/media/clips"])
    }
}

/// A tree whose files have versions, counting the reads of playlist files.
private final class VersionedDisk: PlaylistFileSystem, @unchecked Sendable {
    var base: FakeFileSystem
    var versions: [String: Int64] = [:]
    var reads = 0

    init(_ base: FakeFileSystem) { self.base = base }

    func kind(ofItemAt path: String) -> FileKind? { base.kind(ofItemAt: path) }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] { try base.contentsOfDirectory(atPath: path) }
    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        if offset == 0 { reads += 1 }
        return base.bytes(atPath: path, offset: offset, count: count)
    }
    func fingerprint(atPath path: String) -> FileFingerprint? {
        versions[path].map { FileFingerprint(device: 1, inode: 1, size: 1, changed: $0, modified: $0) }
    }
}

@Suite("Playlist files' folders, kept")
struct PlaylistFileFoldersTests {
    /// Asked every second by the folder watcher: read again only when a playlist file read
    /// for them changed (the nested one too).
    @Test func readAgainOnlyWhenAFileChanged() {
        let store = VersionedDisk(FakeFileSystem(files: ["/a/x.mp4", "/b/y.mp4"], contents: ["/show/main.m3u": "/a/x.mp4\nsub.m3u\n",
                                                                        "/show/sub.m3u": "/b/y.mp4\n"]))
        store.versions = ["/show/main.m3u": 1, "/show/sub.m3u": 1]
        let kept = PlaylistFileFolders()
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: store) == ["/show", "/a", "/b"])
        let readsOnce = store.reads
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: store) == ["/show", "/a", "/b"])
        #expect(store.reads == readsOnce)
        store.versions["/show/sub.m3u"] = 2
        store.base.contents["/show/sub.m3u"] = Array("/c/z.mp4\n".utf8)
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: store) == ["/show", "/a", "/c"])
        #expect(store.reads > readsOnce)
        // A listed playlist file that was missing appears: its folders are looked for then.
        let later = VersionedDisk(FakeFileSystem(files: ["/a/x.mp4"], contents: ["/show/main.m3u": "/a/x.mp4\n/later/more.m3u\n"]))
        later.versions = ["/show/main.m3u": 1]
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: later) == ["/show", "/a", "/later"])
        let readsBefore = later.reads
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: later) == ["/show", "/a", "/later"])
        #expect(later.reads == readsBefore)
        later.base = FakeFileSystem(files: ["/a/x.mp4", "/b/y.mp4"], contents: ["/show/main.m3u": "/a/x.mp4\n/later/more.m3u\n", "/later/more.m3u": "/b/y.mp4\n"])
        later.versions["/later/more.m3u"] = 1
        #expect(kept.folders(of: "/show/main.m3u", fileSystem: later) == ["/show", "/a", "/later", "/b"])
    }
}
