import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let items = "items: [a.mp4]\n"

/// `sync:`'s content keys and `- sync: true`, each mistake one diagnostic (ConfigErrorTests
/// runs this table).
let contentSyncConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "sync manifest not http", yaml: "sync:\n  manifest: ftp://a/m.json\n" + items, line: 2, column: 13,
                    fragment: "'manifest' in sync is 'ftp://a/m.json'; expected none or the http(s) URL of a manifest"),
    ConfigErrorCase(name: "sync interval zero", yaml: "sync:\n  manifest: https://a/m.json\n  interval: 0\n" + items,
                    line: 3, column: 13, fragment: "'interval' in sync is 0; expected seconds >= 1"),
    ConfigErrorCase(name: "sync parallel 9", yaml: "sync:\n  manifest: https://a/m.json\n  parallel: 9\n" + items,
                    line: 3, column: 13, fragment: "'parallel' in sync is 9; expected a whole number from 1 to 8 (downloads at once)"),
    ConfigErrorCase(name: "sync max_rate words", yaml: "sync:\n  max_rate: fast\n" + items, line: 2, column: 13,
                    fragment: "'max_rate' in sync is the string 'fast'; expected 0 (no limit) or bytes per second like 2M"),
    ConfigErrorCase(name: "sync min_free negative", yaml: "sync:\n  min_free: -5\n" + items, line: 2, column: 13,
                    fragment: "'min_free' in sync is -5; expected a size"),
    ConfigErrorCase(name: "sync ca_file missing", yaml: "sync:\n  ca_file: certs/ca.pem\n" + items, line: 2, column: 12,
                    fragment: "CA file '/srv/kiosk/certs/ca.pem' does not exist; expected system or the path of a PEM file"),
    ConfigErrorCase(name: "sync public_key garbage", yaml: "sync:\n  public_key: RWnotakey\n" + items, line: 2, column: 15,
                    fragment: "'public_key' in sync is not a minisign public key"),
    ConfigErrorCase(name: "sync dir root", yaml: "sync:\n  dir: /\n" + items, line: 2, column: 8,
                    fragment: "'dir' in sync is '/'"),
    ConfigErrorCase(name: "sync typo", yaml: "sync:\n  manfest: https://a/m.json\n" + items, line: 2, column: 3,
                    fragment: "unknown key 'manfest' in sync; expected one of: epoch, manifest, interval, dir, parallel, max_rate, min_free, ca_file, public_key (did you mean 'manifest'?)"),
    ConfigErrorCase(name: "sync item false", yaml: "items:\n  - sync: false\n", line: 2, column: 11,
                    fragment: "'sync' in item 1 is false; expected true"),
    ConfigErrorCase(name: "sync item not bool", yaml: "items:\n  - sync: yes please\n", line: 2, column: 11,
                    fragment: "'sync' in item 1 is the string 'yes please'; expected true or false"),
    ConfigErrorCase(name: "sync item with path", yaml: "items:\n  - sync: true\n    path: a.mp4\n", line: 2, column: 11,
                    fragment: "item 1 has both 'path' and 'sync'; expected one of them"),
]

struct ContentSyncConfigTests {
    static let publicKey = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"

    func parse(_ yaml: String, files: [String] = []) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: files))
    }

    @Test func everyKeyIsRead() throws {
        let config = try parse("""
            sync:
              manifest: https://media.example.com/lobby/manifest.json
              interval: 1:30
              dir: store
              parallel: 2
              max_rate: 2M
              min_free: 1G
              ca_file: certs/ca.pem
              public_key: \(Self.publicKey)
            items:
              - sync: true
                title: Lobby
            """, files: ["/srv/kiosk/certs/ca.pem"])
        let content = config.sync.content
        #expect(content.manifest == "https://media.example.com/lobby/manifest.json")
        #expect(content.interval == MediaTime(value: 90, timescale: 1))
        #expect(content.directory == "/srv/kiosk/store")
        #expect(content.parallel == 2)
        #expect(content.maxRate == 2 << 20)
        #expect(content.minFree == 1 << 30)
        #expect(content.caFile == "/srv/kiosk/certs/ca.pem")
        #expect(content.publicKey == .text(Self.publicKey))
        #expect(config.sync.epoch == nil)
        // The entry lists the store named in the same file, wherever the section is written.
        #expect(config.items.first?.source == .synced("/srv/kiosk/store"))
        #expect(config.items.first?.title == "Lobby")
        #expect(PlayerSettings(config: config).sync.content == content)
    }

    @Test func defaultsAreOffAndTheIssuesValues() throws {
        let config = try parse("items:\n  - sync: true\n")
        let content = config.sync.content
        #expect(!content.isEnabled)
        #expect(content.interval == MediaTime(value: 300, timescale: 1))
        #expect(content.directory == "/var/lib/kiosk/sync")
        #expect(content.parallel == 4)
        #expect(content.maxRate == 0)
        #expect(content.minFree == 512 << 20)
        #expect(content.caFile == nil && content.publicKey == nil)
        #expect(config.items.first?.source == .synced("/var/lib/kiosk/sync"))
    }

    @Test func frameSyncAndContentSyncShareTheSection() throws {
        let config = try parse("sync:\n  epoch: 2026-01-01T00:00:00Z\n  manifest: http://10.0.0.1/m.json\n  public_key: keys/k.pub\n" + items,
                               files: ["/srv/kiosk/keys/k.pub"])
        #expect(config.sync.epoch != nil)
        #expect(config.sync.content.manifest == "http://10.0.0.1/m.json")
        #expect(config.sync.content.publicKey == .file("/srv/kiosk/keys/k.pub"))
    }

    /// A set made before the order file: numbered folders, in natural order.
    @Test func aSyncEntryExpandsToTheCurrentSetInManifestOrder() {
        let store = "/var/lib/kiosk/sync"
        let current = store + "/current"
        let files = [current + "/0002/b.mp4", current + "/0010/z.png", current + "/0001/lobby.mp4", current + "/0003/notes.txt"]
        var fileSystem = FakeFileSystem(files: files + [current + "/0002/.title"])
        fileSystem.texts[current + "/0002/.title"] = "Spring offer\n"   // the manifest's title
        let expander = PlaylistExpander(fileSystem: fileSystem)
        let item = ItemConfig(source: .synced(store), location: SourceLocation(file: "kiosk.conf", line: 2, column: 5))
        let expansion = expander.expand([item])
        #expect(expansion.entries.map(\.media) == [.file(current + "/0001/lobby.mp4"), .file(current + "/0002/b.mp4"),
                                                   .file(current + "/0010/z.png")])
        #expect(expansion.entries.map(\.title) == ["lobby.mp4", "Spring offer", "z.png"])
        #expect(expansion.diagnostics.isEmpty)
    }

    /// Sets since the order file: a folder per file named as it, in `.order`'s order; a folder
    /// the order does not name (touched by hand) follows in natural order, a name it lists that
    /// is gone is passed over, and a last line cut off (no newline) is not read.
    @Test func aSetsOrderFileGivesTheManifestOrder() {
        let current = "/var/lib/kiosk/sync/current"
        let names = ["zoo.mp4", "b.mp4", "extra.png", "A.mp4"]
        var fileSystem = FakeFileSystem(files: names.map { current + "/\($0)/\($0)" } + [current + "/.order"])
        fileSystem.contents[current + "/.order"] = Array("zoo.mp4\ngone.mp4\nb.mp4\nzoo.mp4\nA.mp".utf8)
        let item = ItemConfig(source: .synced("/var/lib/kiosk/sync"), location: SourceLocation(file: "kiosk.conf", line: 2, column: 5))
        let expansion = PlaylistExpander(fileSystem: fileSystem).expand([item])
        #expect(expansion.entries.map(\.title) == ["zoo.mp4", "b.mp4", "A.mp4", "extra.png"])
        #expect(expansion.diagnostics.isEmpty)
    }

    @Test func aSyncEntryWithoutASetIsEmptyAndSaysSo() {
        let expander = PlaylistExpander(fileSystem: FakeFileSystem(files: []))
        let item = ItemConfig(source: .synced("/var/lib/kiosk/sync"), location: SourceLocation(file: "kiosk.conf", line: 2, column: 5))
        let expansion = expander.expand([item])
        #expect(expansion.entries.isEmpty)
        #expect(expansion.diagnostics.map(\.message) == ["no synced set in '/var/lib/kiosk/sync' yet; skipped until a sync completes"])
    }

    @Test func theExamplesCommentedContentSyncParses() throws {
        let section = try #require(try ExampleConfigFile.commentedSection("# sync:"))
        let config = try parse(section + "\nitems: [a.mp4]\n")
        #expect(config.sync.content.manifest == "https://media.example.com/lobby/manifest.json")
        #expect(config.sync.content.parallel == 4)
    }
}

struct ContentSyncReloadTests {
    func parse(_ yaml: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml + "items: [a.mp4]\n", fileName: "kiosk.conf", baseDirectory: "/srv",
                               fileSystem: FakeFileSystem(files: []))
    }

    @Test func contentKeysWaitForARestartWhileTheEpochIsLive() throws {
        let old = try parse("sync: {epoch: 2026-01-01T00:00:00Z, manifest: 'http://a/m.json'}\n")
        let newManifest = try parse("sync: {epoch: 2026-01-01T00:00:00Z, manifest: 'http://b/m.json'}\n")
        let changes = ConfigChanges(from: old, to: newManifest)
        #expect(changes.parts == [.contentSync])
        #expect(changes.waitingForRestart == [.contentSync])
        #expect(newManifest.appliedLive(to: old).sync.content.manifest == "http://a/m.json")
        let newEpoch = try parse("sync: {epoch: 2026-02-01T00:00:00Z, manifest: 'http://a/m.json'}\n")
        #expect(ConfigChanges(from: old, to: newEpoch).parts == [.sync])
        #expect(PlayerSettings(config: old).reloaded(from: newEpoch).sync.epoch == newEpoch.sync.epoch)
    }
}
