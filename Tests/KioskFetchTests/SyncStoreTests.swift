import Foundation
import Testing
import KioskCore
@testable import KioskFetch

/// The store on a temporary folder: objects, partials, the atomic switch and what it removes.
struct SyncStoreTests {
    let root: String
    let store: SyncStore

    init() throws {
        root = NSTemporaryDirectory() + "kiosk-sync-store-\(UUID().uuidString)"
        store = SyncStore(directory: root + "/store")
        try store.prepare()
    }

    func object(_ text: String) throws -> SyncManifestFile {
        let bytes = Array(text.utf8)
        let hasher = SHA256()
        hasher.update(bytes)
        let sha = hasher.finalHex()
        try Data(bytes).write(to: URL(fileURLWithPath: store.layout.object(sha)))
        return SyncManifestFile(name: "x", url: "http://h/x", size: Int64(bytes.count), sha256: sha)
    }

    func named(_ file: SyncManifestFile, _ name: String) -> SyncManifestFile {
        var file = file
        file.name = name
        return file
    }

    @Test func sha256OfKnownVectors() {
        let hasher = SHA256()
        hasher.update(Array("abc".utf8))
        #expect(hasher.finalHex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256().finalHex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func aSwitchMakesTheSetInOrderAndTheExpanderPlaysIt() throws {
        let a = try object("first"), b = try object("second")
        let manifest = SyncManifest(files: [named(b, "zebra.mp4"), named(a, "apple.mp4")])
        #expect(store.currentSetID() == nil)
        let id = try store.switchTo(manifest)
        #expect(store.currentSetID() == id)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: store.layout.current) == "sets/" + id)
        // Start-up: only `current` is read, in the manifest's order (not the names').
        let expansion = PlaylistExpander().expand([ItemConfig(source: .synced(store.layout.directory),
                                                               location: SourceLocation(file: "k", line: 1, column: 1))])
        #expect(expansion.entries.map(\.title) == ["zebra.mp4", "apple.mp4"])
        let first = try String(contentsOfFile: store.layout.current + "/zebra.mp4/zebra.mp4", encoding: .utf8)
        #expect(first == "second")
    }

    @Test func aManifestTitleIsTheEntrysTitleAndANewTitleIsANewSet() throws {
        var a = named(try object("titled"), "a.mp4")
        a.title = "Spring offer"
        let first = try store.switchTo(SyncManifest(files: [a]))
        let item = ItemConfig(source: .synced(store.layout.directory), location: SourceLocation(file: "k", line: 1, column: 1))
        #expect(PlaylistExpander().expand([item]).entries.map(\.title) == ["Spring offer"])
        a.title = "Summer offer"
        let second = try store.switchTo(SyncManifest(files: [a]))
        #expect(second != first)
        #expect(PlaylistExpander().expand([item]).entries.map(\.title) == ["Summer offer"])
    }

    @Test func aSecondSwitchRemovesWhatTheNewSetDoesNotUse() throws {
        let a = try object("old only"), b = try object("kept")
        let oldID = try store.switchTo(SyncManifest(files: [named(a, "a.mp4"), named(b, "b.mp4")]))
        let c = try object("new")
        FileManager.default.createFile(atPath: store.layout.partial(String(repeating: "9", count: 64)), contents: Data("junk".utf8))
        let newID = try store.switchTo(SyncManifest(files: [named(b, "b.mp4"), named(c, "c.mp4")]))
        #expect(newID != oldID)
        #expect(store.objectHashes() == [b.sha256, c.sha256])
        #expect(!FileManager.default.fileExists(atPath: store.layout.set(oldID)))
        #expect(store.names(in: store.layout.partials).isEmpty)
        #expect(store.names(in: store.layout.directory).sorted() == ["current", "objects", "partial", "sets"])
    }

    /// The clip on screen keeps its path through `current` when a switch removes a file before
    /// it or reorders the set, so the player's reload keeps it playing (numbered folders
    /// renumbered: the reload saw it removed and cut it).
    @Test func aFileKeptByASwitchKeepsItsPathAndThePlayerKeepsPlayingIt() throws {
        let a = try object("leaves"), b = try object("on screen")
        let item = ItemConfig(source: .synced(store.layout.directory), location: SourceLocation(file: "k", line: 1, column: 1))
        try store.switchTo(SyncManifest(files: [named(a, "a.mp4"), named(b, "b.mp4")]))
        let before = PlaylistExpander().expand([item]).entries
        var cursor = PlaylistCursor(entries: before, loopMode: .playlist)
        _ = cursor.jump(to: 1)
        let c = try object("arrives")   // fetched by the next pass (a switch removes what its set does not use)
        try store.switchTo(SyncManifest(files: [named(c, "c.mp4"), named(b, "b.mp4")].reversed()))
        let after = PlaylistExpander().expand([item]).entries
        #expect(after.map(\.title) == ["b.mp4", "c.mp4"])   // the manifest's order, not the names'
        #expect(after[0].media == before[1].media)
        #expect(cursor.replace(entries: after) == .keptCurrent(0))
        #expect(try String(contentsOfFile: store.layout.current + "/b.mp4/b.mp4", encoding: .utf8) == "on screen")
    }

    @Test func aSwitchWithAnObjectMissingFailsAndLeavesCurrent() throws {
        let a = try object("there")
        let id = try store.switchTo(SyncManifest(files: [named(a, "a.mp4")]))
        let missing = SyncManifestFile(name: "b.mp4", url: "http://h/b", size: 1, sha256: String(repeating: "1", count: 64))
        #expect(throws: SyncStoreError.self) { try store.switchTo(SyncManifest(files: [named(a, "a.mp4"), missing])) }
        #expect(store.currentSetID() == id)
        #expect(try String(contentsOfFile: store.layout.current + "/a.mp4/a.mp4", encoding: .utf8) == "there")
    }

    @Test func aTornPartialWithoutItsValidatorStartsAgainFromZero() throws {
        let file = SyncManifestFile(name: "a.mp4", url: "http://h/a", size: 100, sha256: String(repeating: "a", count: 64))
        FileManager.default.createFile(atPath: store.layout.partial(file.sha256), contents: Data(count: 40))
        #expect(store.resumableSizes().isEmpty)
        let torn = ObjectDownload(file: file, store: store)
        #expect(torn.offset == 0 && torn.requestHeaders.isEmpty)
        store.saveValidator("\"v1\"", for: file.sha256)
        #expect(store.resumableSizes() == [file.sha256: 40])
        let resumed = ObjectDownload(file: file, store: store)
        #expect(resumed.offset == 40)
        #expect(resumed.requestHeaders == ["Range: bytes=40-", "If-Range: \"v1\""])
        // A partial as long as the file (cut before its rename) is not resumed past its end.
        FileManager.default.createFile(atPath: store.layout.partial(file.sha256), contents: Data(count: 100))
        #expect(ObjectDownload(file: file, store: store).offset == 0)
    }

    @Test func validatorsAreStrongETagsOrLastModified() {
        #expect(ObjectDownload.validator(["etag": "\"abc\"", "last-modified": "Mon"]) == "\"abc\"")
        #expect(ObjectDownload.validator(["etag": "W/\"abc\"", "last-modified": "Mon"]) == "Mon")
        #expect(ObjectDownload.validator([:]) == nil)
    }

    @Test func theManifestETagSurvivesAsOneLineAndBelongsToItsSet() throws {
        let id = try store.switchTo(SyncManifest(files: [named(try object("tagged"), "a.mp4")]))
        store.saveManifestETag("\"m-1\"", forSet: id)
        #expect(store.manifestETag() == "\"m-1\"")
        // Saved for another set (a power cut between a switch and the ETag's save): no ETag, so
        // the next pass fetches the manifest whole instead of believing a 304.
        store.saveManifestETag("\"m-0\"", forSet: "0123456789abcdef")
        #expect(store.manifestETag() == nil)
        store.saveManifestETag(nil, forSet: id)
        #expect(store.manifestETag() == nil)
    }
}
