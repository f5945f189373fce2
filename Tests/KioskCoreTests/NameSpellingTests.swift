import Foundation
import Synchronization
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// Names written in another Unicode form or letter case than the disk's (`NameSpelling`).
@Suite("Names as the disk spells them")
struct NameSpellingTests {
    /// `é` composed (as an editor on Windows writes it) and decomposed (as macOS names files).
    static let composed = "Caf\u{E9}"
    static let decomposed = "Cafe\u{301}"

    /// A folder holding `files` (names as given, a byte each), the folder's path.
    private func folder(_ files: [String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("spelling-\(UUID().uuidString)").path
        for name in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: PathText.normalize(path + "/.."), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: path, contents: Data([0])))
        }
        return root
    }

    @Test func theFormsDifferOnDisk() throws {
        let root = try folder([Self.decomposed + ".mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        // What the test stands on: the disk keeps the decomposed bytes, and the composed name
        // is not there by its bytes (else the rest would pass without NameSpelling).
        let names = try FileManager.default.contentsOfDirectory(atPath: root)
        #expect(names.map { Array($0.utf8) } == [Array((Self.decomposed + ".mp4").utf8)])
        #expect(LocalFileSystem().kind(ofItemAt: root + "/" + Self.composed + ".mp4") == nil)
    }

    @Test func aPlaylistLineInAnotherUnicodeFormOrCasePlaysTheFile() throws {
        let root = try folder([Self.decomposed + "/" + Self.decomposed + ".mp4", "intro.mp4", "a.mp4", "A.mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let list = root + "/show.m3u"
        try Data("\(Self.composed)/\(Self.composed).mp4\nINTRO.MP4\nA.MP4\nmissing.mp4\n".utf8).write(to: URL(fileURLWithPath: list))
        let expansion = PlaylistExpander().expand([.written(.file(list))])
        #expect(expansion.entries.map(\.media) == [.file(root + "/" + Self.decomposed + "/" + Self.decomposed + ".mp4"),
                                                   .file(root + "/intro.mp4")])
        // `A.MP4` is both `a.mp4` and `A.mp4`: not guessed.
        let messages = expansion.diagnostics.map(\.message)
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.first?.contains("file '\(root)/A.MP4' does not exist") == true, "\(messages)")
        #expect(messages.last?.contains("file '\(root)/missing.mp4' does not exist") == true, "\(messages)")
    }

    @Test func aConfigItemInAnotherUnicodeFormPlaysTheFile() throws {
        let root = try folder([Self.decomposed + ".mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let expansion = PlaylistExpander().expand([.written(.file(root + "/" + Self.composed + ".mp4"))])
        #expect(expansion.entries.map(\.media) == [.file(root + "/" + Self.decomposed + ".mp4")])
        #expect(expansion.diagnostics.isEmpty)
    }

    @Test func aStickListIsRespelledOnTheStickOnly() throws {
        let outside = try folder(["Secret.mp4"])
        let stick = try folder(["show.m3u"])
        defer {
            try? FileManager.default.removeItem(atPath: outside)
            try? FileManager.default.removeItem(atPath: stick)
        }
        let up = String(repeating: "../", count: stick.split(separator: "/").count)
        // Out by `..`, and through a link on the stick to a folder off it.
        try FileManager.default.createSymbolicLink(atPath: stick + "/lnk", withDestinationPath: outside)
        try Data("\(up)\(outside.dropFirst())/secret.mp4\nlnk/SECRET.MP4\n".utf8).write(to: URL(fileURLWithPath: stick + "/show.m3u"))
        let disk = ListingFileSystem()
        var expander = PlaylistExpander(fileSystem: disk)
        expander.confinement = stick
        let expansion = expander.expand([.written(.file(stick + "/show.m3u"))])
        #expect(expansion.entries.isEmpty)
        // Not even looked for outside: no folder off the stick listed.
        #expect(disk.listed.withLock { $0 }.allSatisfy { PathText.isInside($0, stick) }, "\(disk.listed.withLock { $0 })")
    }

    /// `Show.M3U` in kiosk.conf for `show.m3u` on disk is read as the list it is, not played as a clip.
    @Test func aConfigItemNamingAListInAnotherCaseIsReadAsAList() throws {
        let root = try folder(["a.mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("a.mp4\n".utf8).write(to: URL(fileURLWithPath: root + "/show.m3u"))
        let expansion = PlaylistExpander().expand([.written(.file(root + "/Show.M3U"))])
        #expect(expansion.entries.map(\.media) == [.file(root + "/a.mp4")])
    }

    /// A missing file in a folder written in another form is watched for in the folder as the
    /// disk spells it: the copy that arrives there is seen.
    @Test func aMissingFilesFolderIsWatchedAsTheDiskSpellsIt() throws {
        let root = try folder([Self.decomposed + "/other.mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("\(Self.composed)/late.mp4\n".utf8).write(to: URL(fileURLWithPath: root + "/show.m3u"))
        let listing = try #require(PlaylistExpander().playlistFile(root + "/show.m3u"))
        #expect(listing.folders.contains { Array($0.utf8) == Array((root + "/" + Self.decomposed).utf8) }, "\(listing.folders)")
    }

    /// A folder item written in another form is watched as the disk spells it.
    @Test func aFolderItemIsWatchedAsTheDiskSpellsIt() throws {
        let root = try folder([Self.decomposed + "/a.mp4"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let watched = WatchedFolders.directories(of: [.written(.file(root + "/" + Self.composed))])
        #expect(watched.map { Array($0.utf8) } == [Array((root + "/" + Self.decomposed).utf8)])
    }

    @Test(arguments: [
        ("b", ["a", "b"], "b"), ("B", ["a", "b"], "b"), ("x", ["a"], nil), ("A", ["a", "A"], "A"),
        ("a", ["A", "\u{C0}"], "A"), ("\u{C0}", ["A\u{300}", "a"], "A\u{300}"), ("\u{E0}", ["A\u{300}"], "A\u{300}"),
        ("ab", ["AB", "Ab"], nil),
    ] as [(String, [String], String?)])
    func theOneSpellingIsChosen(_ wanted: String, _ names: [String], _ expected: String?) {
        #expect(NameSpelling.spelling(of: wanted, among: names) == expected)
    }
}

/// The real file system, noting each folder listed.
private final class ListingFileSystem: PlaylistFileSystem, @unchecked Sendable {
    let base = LocalFileSystem()
    let listed = Mutex<[String]>([])
    func kind(ofItemAt path: String) -> FileKind? { base.kind(ofItemAt: path) }
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        listed.withLock { $0.append(PathText.normalize(path)) }
        return try base.contentsOfDirectory(atPath: path)
    }
    func smallText(atPath path: String) -> String? { base.smallText(atPath: path) }
    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] { base.bytes(atPath: path, offset: offset, count: count) }
    func fingerprint(atPath path: String) -> FileFingerprint? { base.fingerprint(atPath: path) }
    func isConfined(_ path: String, to root: String) -> Bool { base.isConfined(path, to: root) }
    func resolvedPath(_ path: String) -> String? { base.resolvedPath(path) }
    var knowsLinks: Bool { base.knowsLinks }
    func entryKind(atPath path: String) -> EntryKind? { base.entryKind(atPath: path) }
}
