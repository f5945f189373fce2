import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// Whatever a playlist file holds (`ByteDamage`), reading it ends, keeps to its folder, and
/// says each problem in a bounded message that names the file.
private let listTokens = ["</track>", "<track>", "<location>", "</location>", "<media src=\"", "\"/>", "%2e%2e/", "file://", "file:/",
                          "file:///../../etc/shadow", "File99999999999999999999=", "File0=", "Length1=1e308", "Title1=", "#EXTINF:nan,",
                          "#EXTINF:-1e400,x", "#EXT-X-TARGETDURATION:6", "\\\\server\\share\\a.mp4", "C:\\Users\\me\\a.mp4",
                          "more.m3u", "list.m3u", "list.pls", "list.xspf", "list.wpl", "clips/", "rtsp://cam/1"]
private let listChunks = ["<track><location>menu.png</location></track>", "<a>", "<track>", "File1=menu.png\n", "menu.png\n",
                          "more.m3u\n", "#EXTINF:1,x\n", "<media src=\"menu.png\"/>"]

@Suite("Playlist files: damaged and hostile lists")
struct PlaylistFileFuzzTests {
    /// One list per format, each naming the stick's files, one outside it, a URL and a nested list.
    static let seeds: [String: String] = [
        "m3u": "#EXTM3U\n#EXTINF:8,Menu\nmenu.png\nclips/a.mp4\nfile:///show/clips/b%20c.mp4\n../elsewhere/secret.mp4\n/etc/shadow\n"
            + "http://cms.example/x.mp4\nmore.m3u\nlist.m3u\nclips/\n",
        "pls": "[playlist]\nFile1=menu.png\nTitle1=Menu\nLength1=8\nFile2=clips/a.mp4\nFile3=../elsewhere/secret.mp4\nFile4=more.m3u\n"
            + "NumberOfEntries=4\nVersion=2\n",
        "xspf": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<playlist xmlns=\"http://xspf.org/ns/0/\" version=\"1\"><trackList>\n"
            + "<track><location>menu.png</location><title>Menu</title><duration>8000</duration></track>\n"
            + "<track><location>file:///show/clips/b%20c.mp4</location></track>\n"
            + "<track><location>file:///elsewhere/secret.mp4</location></track>\n<track><location>more.m3u</location></track>\n"
            + "</trackList></playlist>\n",
        "wpl": "<?wpl version=\"1.0\"?>\n<smil><head><title>Lobby</title></head><body><seq>\n<media src=\"menu.png\"/>"
            + "<media src=\"clips\\a.mp4\"/><media src=\"..\\elsewhere\\secret.mp4\"/><media src=\"more.m3u\"/>\n</seq></body></smil>\n",
    ]
    static let files = ["/show/menu.png", "/show/clips/a.mp4", "/show/clips/b c.mp4", "/elsewhere/secret.mp4", "/etc/shadow"]

    /// The stick as the watcher reads it: its list confined to /show.
    static func expand(_ list: [UInt8], as format: String) -> PlaylistExpansion {
        var disk = FakeFileSystem(files: files + ["/show/more.m3u", "/show/list.\(format)"])
        disk.contents = ["/show/more.m3u": Array("clips/a.mp4\nlist.\(format)\n../elsewhere/secret.mp4\n".utf8), "/show/list.\(format)": list]
        var expander = PlaylistExpander(fileSystem: disk)
        expander.confinement = "/show"
        return expander.expand([.written(.file("/show/list.\(format)"))])
    }

    /// What holds for any list: only the stick's files play; at most the kept messages and the
    /// count of the rest; each names a file of the stick and is short enough to read.
    static func problems(of expansion: PlaylistExpansion) -> [String] {
        var found: [String] = []
        for entry in expansion.entries {
            guard case .file(let path) = entry.media, path.hasPrefix("/show/"), files.contains(path) else {
                found.append("plays \(entry.media)")
                continue
            }
        }
        if expansion.entries.count > PlaylistExpander.playlistFileEntryLimit { found.append("\(expansion.entries.count) entries") }
        if expansion.diagnostics.count > PlaylistFileListing.problemsKept + 2 { found.append("\(expansion.diagnostics.count) messages") }
        for message in expansion.diagnostics.map(\.message) where !message.contains("'/show/") || message.count > 1_000 {
            found.append("message: \(message.prefix(300))")
        }
        return found
    }

    @Test func theSeedsPlayTheStickAndRefuseTheRest() {
        for (format, text) in Self.seeds.sorted(by: { $0.key < $1.key }) {
            let expansion = Self.expand(Array(text.utf8), as: format)
            #expect(Self.problems(of: expansion) == [], "\(format)")
            #expect(expansion.entries.map(\.media.description).contains("/show/menu.png"), "\(format)")
            #expect(expansion.diagnostics.contains { $0.message.contains("secret.mp4") }, "\(format): the file outside is said")
        }
    }

    /// 1,000 damaged lists (250 per format, one to four kinds of damage each, a fixed seed so a
    /// failure replays): none crashes, hangs, escapes the stick or floods the log.
    @Test func damagedListsAreReadWithinBounds() {
        var random = SeededGenerator(state: 0x5EED_0035)
        var failures: [String] = []
        for (format, text) in Self.seeds.sorted(by: { $0.key < $1.key }) {
            for run in 0..<250 {
                var bytes = Array(text.utf8)
                let done = ByteDamage.damage(&bytes, tokens: listTokens, chunks: listChunks, using: &random)
                let found = Self.problems(of: Self.expand(bytes, as: format))
                if !found.isEmpty { failures.append("\(format) run \(run) \(done): \(found.prefix(3))") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) lists: \(failures.prefix(5))")
    }

    /// Markup nested far past the reader's depth, and a UTF-16 file of an odd length: said, not followed.
    @Test func deepNestingAndOddUTF16AreSaid() {
        let deep = "<playlist><trackList>" + String(repeating: "<track>", count: 100_000) + "</trackList></playlist>"
        let nested = Self.expand(Array(deep.utf8), as: "xspf")
        #expect(nested.entries.isEmpty)
        #expect(nested.diagnostics.map(\.message).contains { $0.contains("/show/list.xspf") && $0.contains("nested over") },
                "\(nested.diagnostics.map(\.message))")
        let odd: [UInt8] = [0xFF, 0xFE] + Array("menu.png\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) + [0x41]
        let utf16 = Self.expand(odd, as: "m3u")
        #expect(Self.problems(of: utf16) == [])
        #expect(utf16.entries.map(\.media.description).first == "/show/menu.png")
    }

    /// Lines one at a time give what splitting at every break gives, CR LF kept as one break,
    /// a combining mark after a break starting the next line.
    @Test func linesOneAtATimeAreTheSplitLines() {
        var random = SeededGenerator(state: 73)
        let pieces = ["a", "é", "e\u{301}", "🎬", "\n", "\r", "\r\n", "\n\r", "\u{301}", " ", "\u{2028}", "\u{85}"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let split = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            #expect(Array(TextLines(text)) == split, "\(Array(text.unicodeScalars))")
        }
    }

    /// A 4 MiB list of two-byte lines is two million entries: the file keeps one past what a
    /// listing reads, and the listing says where it stopped.
    @Test func aListOfMillionsOfLinesKeepsWhatIsRead() throws {
        let lines = Array(String(repeating: "a\n", count: 2 << 20).utf8)
        let playlist = try #require(PlaylistFile.parse(lines, as: .m3u))
        #expect(playlist.entries.count == PlaylistFileListing.lineLimit + 1)
        let pls = try #require(PlaylistFile.parse(Array(String(repeating: "File=a\n", count: 600_000).utf8), as: .pls))
        #expect(pls.entries.count + pls.skipped.count == PlaylistFileListing.lineLimit + 1)
        let expansion = Self.expand(lines, as: "m3u")
        #expect(expansion.entries.isEmpty)
        #expect(expansion.diagnostics.contains { $0.message.contains("\(PlaylistFileListing.lineLimit) lines listed; the rest are not read") },
                "\(expansion.diagnostics.map(\.message))")
    }
}
