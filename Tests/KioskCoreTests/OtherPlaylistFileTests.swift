import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// What VLC saves by default (`.xspf`), Winamp and radio sites (`.pls`) and Windows Media Player
/// (`.wpl`) write: the same entries as an `.m3u` gives, each bad element said with its place.
@Suite("Playlist files of other players")
struct OtherPlaylistFileTests {
    /// A PLS's entries in the order of their numbers, with titles and lengths, keys in any case.
    @Test func plsEntriesByNumber() throws {
        let text = "[playlist]\r\nNumberOfEntries=3\r\nFile2=clips/b.mp4\r\nTitle2=Second\r\nfile1=menu.png\r\n"
            + "title1=Lunch menu\r\nLength1=7\r\nFile3=http://radio.example/stream\r\nLength3=-1\r\nFileX=nothing.mp4\r\nVersion=2\r\n"
        let playlist = try #require(PlaylistFile.parse(Array(text.utf8), as: .pls))
        #expect(playlist.entries == [
            PlaylistFile.Entry(location: "menu.png", title: "Lunch menu", seconds: 7, line: 5),
            PlaylistFile.Entry(location: "clips/b.mp4", title: "Second", seconds: nil, line: 3),
            PlaylistFile.Entry(location: "http://radio.example/stream", title: nil, seconds: nil, line: 8),
        ])
        let show = FakeFileSystem(files: ["/show/menu.png", "/show/clips/b.mp4"], contents: ["/show/list.PLS": text])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/list.PLS"))])
        #expect(expansion.entries.map(\.media.description) == ["/show/menu.png", "/show/clips/b.mp4", "http://radio.example/stream"])
        #expect(expansion.entries.map(\.title) == ["Lunch menu", "Second", "http://radio.example/stream"], "untitled: its name")
        #expect(expansion.entries.map { $0.item.duration?.seconds } == [7, nil, nil])
        #expect(expansion.diagnostics.map(\.message) == [
            "playlist file '/show/list.PLS' line 10: 'FileX=nothing.mp4' is not a numbered File line (File1=...); skipped",
        ])
    }

    /// VLC's own file: absolute `file:///` URIs with %-escapes, relative ones (%-escaped too),
    /// titles, durations in milliseconds (a picture's `duration`), its extension elements ignored.
    @Test func xspfAsVLCWritesIt() {
        let text = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <playlist xmlns="http://xspf.org/ns/0/" xmlns:vlc="http://www.videolan.org/vlc/playlist/ns/0/" version="1">
            \t<title>Lobby &amp; shop</title>
            \t<trackList>
            \t\t<track>
            \t\t\t<location>file:///media/My%20Clips/a%C3%A9.mp4</location>
            \t\t\t<title>Opening</title>
            \t\t\t<duration>10000</duration>
            \t\t\t<extension application="http://www.videolan.org/vlc/playlist/0"><vlc:id>0</vlc:id></extension>
            \t\t</track>
            \t\t<track><location>Menus/lunch%20menu.png</location><duration>12500</duration></track>
            \t\t<track><location> rtsp://cam.local/1 </location><title>Door</title></track>
            \t</trackList>
            \t<extension application="http://www.videolan.org/vlc/playlist/0"><vlc:item tid="0"/></extension>
            </playlist>
            """
        let show = FakeFileSystem(files: ["/media/My Clips/aé.mp4", "/show/Menus/lunch menu.png"], contents: ["/show/lobby.xspf": text])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/lobby.xspf"))])
        #expect(expansion.entries.map(\.media.description) == ["/media/My Clips/aé.mp4", "/show/Menus/lunch menu.png", "rtsp://cam.local/1"])
        #expect(expansion.entries.map(\.title) == ["Opening", "lunch menu.png", "Door"])
        // A video plays its own length; the picture takes the file's 12.5 s.
        #expect(expansion.entries.map { $0.item.duration?.seconds } == [nil, 12.5, nil])
        #expect(expansion.entries.map(\.isStillImage) == [false, true, false])
        #expect(expansion.diagnostics.isEmpty)
    }

    /// Each element that names nothing playable is one message with its place (the track's or
    /// media element's count: XML has no lines the reader keeps); the rest plays.
    @Test func badElementsAreSaidWithTheirPlace() {
        let show = FakeFileSystem(files: ["/show/a.mp4"], contents: [
            "/show/vlc.xspf": "<playlist><trackList><track><identifier>isrc:1</identifier></track>"
                + "<track><location>file:///C:/Users/me/Videos/b.mp4</location></track><track><location>a.mp4</location></track>"
                + "<track><location>gone.mp4</location></track></trackList></playlist>",
            "/show/wmp.wpl": "<?wpl version=\"1.0\"?>\r\n<smil><head><title>Shop</title></head><body><seq>"
                + "<media src=\"a.mp4\"/><media src=\"C:\\Users\\me\\Videos\\b.wmv\" tid=\"{1}\"/><media/>"
                + "<media src=\"..\\show\\a.mp4\"/></seq></body></smil>",
        ])
        let expander = PlaylistExpander(fileSystem: show)
        let xspf = expander.expand([.written(.file("/show/vlc.xspf"), line: 3)])
        #expect(xspf.entries.map(\.media.description) == ["/show/a.mp4"])
        #expect(xspf.diagnostics.map(\.description) == [
            "kiosk.conf:3:5: playlist file '/show/vlc.xspf' track 1: a <track> without a <location>; skipped",
            "kiosk.conf:3:5: playlist file '/show/vlc.xspf' track 2: 'file:///C:/Users/me/Videos/b.mp4' is a Windows path, not one on "
                + "this box: write the names relative to the playlist file (Media\\clip.mp4 or Media/clip.mp4) and keep the files beside it; skipped",
            "kiosk.conf:3:5: playlist file '/show/vlc.xspf' track 4: file '/show/gone.mp4' does not exist; skipped until it appears",
        ])
        let wpl = expander.expand([.written(.file("/show/wmp.wpl"))])
        #expect(wpl.entries.map(\.media.description) == ["/show/a.mp4", "/show/a.mp4"])
        #expect(wpl.diagnostics.map(\.message) == [
            "playlist file '/show/wmp.wpl' media element 2: 'C:\\Users\\me\\Videos\\b.wmv' is a Windows path, not one on this box: "
                + "write the names relative to the playlist file (Media\\clip.mp4 or Media/clip.mp4) and keep the files beside it; skipped",
            "playlist file '/show/wmp.wpl' media element 3: a <media> element without a src; skipped",
        ])
    }

    /// PLS lines that look like entries and give none are said; "File 1" is entry 1; a length
    /// below a millisecond is no time.
    @Test func plsLinesThatGiveNothingAreSaid() {
        let show = FakeFileSystem(files: ["/show/a.mp4", "/show/b.mp4"], contents: [
            "/show/radio.pls": "[playlist]\nFile 1=a.mp4\nLength1=1e-9\nFile2=\nFileX=b.mp4\nFile1=b.mp4\nFile3=b.mp4\n",
        ])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/radio.pls"))])
        #expect(expansion.entries.map(\.media.description) == ["/show/a.mp4", "/show/b.mp4"])
        #expect(expansion.entries.map { $0.item.duration } == [nil, nil])
        #expect(expansion.diagnostics.map(\.message) == [
            "playlist file '/show/radio.pls' line 4: File2= names no file; skipped",
            "playlist file '/show/radio.pls' line 5: 'FileX=b.mp4' is not a numbered File line (File1=...); skipped",
            "playlist file '/show/radio.pls' line 6: File1 is given again (line 2 is the one played); skipped",
        ])
    }

    /// A list made on another computer names its files there (VLC saves absolute names,
    /// Windows' players drive letters): copied with its files, each is found beside it by its
    /// last folders and name. `file:/path` (no empty host) is a file URI too.
    @Test func namesOfAnotherComputerAreFoundBesideTheFile() {
        let stick = FakeFileSystem(files: ["/stick/lobby/clips/a.mp4", "/stick/lobby/b.mp4", "/stick/lobby/c.mp4", "/elsewhere/d.mp4"], contents: [
            "/stick/lobby/vlc.xspf": "<playlist><trackList><track><location>file:///home/me/Videos/lobby/clips/a.mp4</location></track>"
                + "<track><location>file:///C:/Users/me/Videos/b.mp4</location></track>"
                + "<track><location>file:/elsewhere/d.mp4</location></track>"
                + "<track><location>file:///home/me/gone.mp4</location></track></trackList></playlist>",
            "/stick/lobby/win.m3u": "C:\\Users\\me\\Videos\\c.mp4\n/home/me/Videos/lobby/b.mp4\nD:\\gone.mp4\n",
        ])
        let expander = PlaylistExpander(fileSystem: stick)
        let xspf = expander.expand([.written(.file("/stick/lobby/vlc.xspf"))])
        #expect(xspf.entries.map(\.media.description) == ["/stick/lobby/clips/a.mp4", "/stick/lobby/b.mp4", "/elsewhere/d.mp4"])
        #expect(xspf.diagnostics.map(\.message) == [
            "playlist file '/stick/lobby/vlc.xspf' track 4: file '/home/me/gone.mp4' does not exist; skipped until it appears",
        ])
        let m3u = expander.expand([.written(.file("/stick/lobby/win.m3u"))])
        #expect(m3u.entries.map(\.media.description) == ["/stick/lobby/c.mp4", "/stick/lobby/b.mp4"])
        #expect(m3u.diagnostics.count == 1)
        #expect(m3u.diagnostics.first?.message.contains("line 3: 'D:\\gone.mp4' is a Windows path") == true)
    }

    /// A VLC export of 6,000 tracks (~5 elements each, past a CAP alert's 20,000) is read up to
    /// the entries' bound; a file of 20,000 tracks naming nothing, listed 3,000 times, costs the
    /// line bound, not 60 million messages.
    @Test func largeAndHostileXMLFilesAreBounded() {
        let tracks = (0..<6_000).map { "<track><location>http://cdn.example/\($0).mp4</location><title>T\($0)</title>"
            + "<extension application=\"http://www.videolan.org/vlc/playlist/0\"><vlc:id>\($0)</vlc:id></extension></track>" }
        let empty = String(repeating: "<track/>", count: 20_000)
        let show = FakeFileSystem(files: [], contents: [
            "/show/big.xspf": "<playlist><trackList>" + tracks.joined() + "</trackList></playlist>",
            "/show/empty.xspf": "<playlist><trackList>" + empty + "</trackList></playlist>",
            "/show/many.m3u": String(repeating: "empty.xspf\n", count: 3_000),
        ])
        let expander = PlaylistExpander(fileSystem: show)
        let big = expander.expand([.written(.file("/show/big.xspf"))])
        #expect(big.entries.count == PlaylistExpander.playlistFileEntryLimit)
        #expect(big.entries.last?.title == "T4999")
        #expect(big.diagnostics.map(\.message) == ["playlist file '/show/big.xspf' track 5001: 5000 entries or 50000 lines listed; "
                                                   + "the rest are not read"])
        let listing = expander.playlistFile("/show/many.m3u")
        #expect(listing?.problemCount ?? 0 <= PlaylistFileListing.lineLimit + 1)
        #expect(listing?.problems.last?.hasSuffix("50000 lines listed; the rest are not read") == true)
        #expect(listing?.problems.count == PlaylistFileListing.problemsKept + 1, "ten, and why it stopped")
    }

    /// Windows' UTF-16 files (Notepad's "Unicode", either byte order): read as their text.
    @Test func utf16FilesAreRead() throws {
        let text = "<?wpl version=\"1.0\"?><smil><body><seq><media src=\"Café\\a.mp4\"/></seq></body></smil>"
        let little: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big: [UInt8] = [0xFE, 0xFF] + "#EXTINF:3,Müsli\r\nmenü.png\r\n".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(try #require(PlaylistFile.parse(little, as: .wpl)).entries.map(\.location) == ["Café\\a.mp4"])
        #expect(try #require(PlaylistFile.parse(big, as: .m3u)).entries
                == [PlaylistFile.Entry(location: "menü.png", title: "Müsli", seconds: 3, line: 2)])
        #expect(try #require(PlaylistFile.parse(little + [0x41], as: .wpl)).entries.count == 1, "an odd last byte")
    }

    /// A file that is not what its name says is one message; a list with nothing in it says what
    /// its format lacks; an entity a DOCTYPE declares is not expanded (no "billion laughs").
    @Test func brokenFilesAreOneMessage() {
        let show = FakeFileSystem(files: [], contents: [
            "/show/text.xspf": "a.mp4\nb.mp4\n", "/show/feed.xspf": "<rss><channel/></rss>", "/show/none.xspf": "<playlist/>",
            "/show/none.pls": "[playlist]\nNumberOfEntries=0\n", "/show/none.wpl": "<smil><body><seq/></body></smil>",
            "/show/laughs.xspf": "<!DOCTYPE playlist [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
                + "<playlist><trackList><track><location>&b;.mp4</location></track></trackList></playlist>",
        ])
        let expander = PlaylistExpander(fileSystem: show)
        let said = { (path: String) in expander.expand([.written(.file(path))]).diagnostics.map(\.message) }
        #expect(said("/show/text.xspf") == ["playlist file '/show/text.xspf': not an XSPF playlist: not XML (no element in it); skipped"])
        #expect(said("/show/feed.xspf") == ["playlist file '/show/feed.xspf': not an XSPF playlist (its XML's root element is <rss>, "
                                            + "not <playlist>); skipped"])
        #expect(said("/show/none.xspf") == ["playlist file '/show/none.xspf' lists no media (no <track> in its <trackList>); skipped"])
        #expect(said("/show/none.pls") == ["playlist file '/show/none.pls' lists no media (no File1= lines); skipped"])
        #expect(said("/show/none.wpl") == ["playlist file '/show/none.wpl' lists no media (no <media> in its <body>); skipped"])
        #expect(said("/show/laughs.xspf") == ["playlist file '/show/laughs.xspf' track 1: file '/show/&b;.mp4' does not exist; "
                                              + "skipped until it appears"])
    }

    /// Formats list each other (an M3U naming VLC's XSPF); each is a playlist file by its name in
    /// any case, never a folder's media.
    @Test func formatsNestAndAreNotMedia() {
        let show = FakeFileSystem(files: ["/show/a.mp4", "/show/b.mp4", "/show/c.mp4"], contents: [
            "/show/main.m3u": "a.mp4\nvlc.XSPF\n", "/show/vlc.XSPF": "<playlist><trackList><track><location>b.mp4</location>"
                + "</track><track><location>radio.pls</location></track></trackList></playlist>",
            "/show/radio.pls": "[playlist]\nFile1=c.mp4\nFile2=main.m3u\n",
        ])
        let expansion = PlaylistExpander(fileSystem: show).expand([.written(.file("/show/main.m3u"))])
        #expect(expansion.entries.map(\.media.description) == ["/show/a.mp4", "/show/b.mp4", "/show/c.mp4"])
        #expect(expansion.diagnostics.map(\.message) == [
            "playlist file '/show/radio.pls' line 3: '/show/main.m3u' is a playlist file that lists this one (a loop); skipped",
        ])
        #expect(["a.PLS", "b.xspf", "c.Wpl", "d.m3u8"].allSatisfy(PlaylistFile.isNamed))
        #expect(PlaylistExpander(fileSystem: show).expand([.written(.directory("/show"))]).entries.map(\.media.description)
                == ["/show/a.mp4", "/show/b.mp4", "/show/c.mp4"])
    }
}
