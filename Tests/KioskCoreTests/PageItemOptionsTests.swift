import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy
import Yams

/// The options of an item the web page does not edit (volume, trim, loop, transition, sync)
/// survive its saves: a reordered list written by the page keeps them with their entries.
@Suite("The page keeps the items' other options")
struct PageItemOptionsTests {
    let files = FakeFileSystem(files: ["/srv/kiosk/a.mp4", "/srv/kiosk/b.mp4", "/srv/kiosk/slate.png"])

    func parse(_ yaml: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: files)
    }

    static let conf = """
        items:
          - path: a.mp4
            volume: 40
            start: 1
            end: 0:04
            loop: 2
            muted: true
            transition: {type: fade, duration: 0.5}
            title: Lobby, east
          - b.mp4
          - {path: b.mp4, enabled: false, volume: 10}
          - {path: b.mp4, volume: 70}
        """

    @Test func kiosksConfsOptionsAreKeptThroughAReorderedSave() throws {
        let config = try parse(Self.conf)
        let kept = try #require(PageItemOptions.keptPerItem(ofConfigText: Self.conf))
        #expect(kept.count == config.items.count)
        let shown = PagePlaylist.entries(of: config.items, kept: kept)
        #expect(shown[0].kept.map(\.key) == ["volume", "start", "end", "loop", "muted", "transition"])
        // What the page sends back: its own fields only, reversed; the two b.mp4 are told
        // apart by their order.
        let sent = shown.reversed().map { entry -> PagePlaylistEntry in
            var plain = PagePlaylistEntry(path: entry.path, title: entry.title, duration: entry.duration, gravity: entry.gravity)
            plain.enabled = entry.enabled
            return plain
        }
        let saved = PageItemOptions.carrying(Array(sent), from: shown)
        let text = PagePlaylist.text(saved)
        let merged = try PagePlaylist.merged(into: config, fileName: "/var/lib/kiosk/page.yaml", text: text,
                                             baseDirectory: "/srv/kiosk", fileSystem: files)
        let a = try #require(merged.items.last)
        #expect(a.source == .file("/srv/kiosk/a.mp4"))
        #expect(a.volume == 40 && a.muted == true && a.loopCount == 2, "\(text)")
        #expect(a.start == MediaTime(value: 1, timescale: 1) && a.end == MediaTime(value: 4, timescale: 1))
        #expect(a.transition == config.items[0].transition && a.title == "Lobby, east")
        // Equal paths are told apart by order only: the first b.mp4 the page sends is the first
        // of kiosk.conf's (no volume), the second its second (70); the disabled one is not listed.
        #expect(merged.items.map(\.volume) == [nil, 70, 40])
        // Read back as the page shows it, the options are still there, and saved again unchanged.
        let again = try #require(PagePlaylist.contents(ofText: text)?.items)
        #expect(again == saved)
        #expect(PagePlaylist.text(PageItemOptions.carrying(again.map { PagePlaylistEntry(path: $0.path, title: $0.title) }, from: again)) == text)
    }

    @Test func anEntryThePageAddsHasNoOptionsAndSentOptionsAreNotTaken() throws {
        let before = [PagePlaylistEntry(path: "/srv/kiosk/a.mp4")].map { entry -> PagePlaylistEntry in
            var entry = entry
            entry.kept = [KeptItemOption(key: "volume", yaml: "40")]
            return entry
        }
        let saved = PageItemOptions.carrying([PagePlaylistEntry(path: "/srv/kiosk/b.mp4"), PagePlaylistEntry(path: "/srv/kiosk/a.mp4"),
                                              PagePlaylistEntry(path: "/srv/kiosk/a.mp4")], from: before)
        #expect(saved.map(\.kept.count) == [0, 1, 0])
        // The page's JSON has no field for them: a client that sends one is refused.
        let value = try #require(ControlValue.parse(#"{"items": [{"path": "a.mp4", "volume": 40}]}"#))
        guard case .failure = PagePlaylist.entries(from: value) else { Issue.record("volume taken from the page"); return }
    }

    @Test func aSyncEntryStaysASyncEntry() throws {
        let conf = "sync: {manifest: \"https://h/m.json\", dir: /data/sync}\nitems:\n  - sync: true\n    volume: 30\n  - a.mp4\n"
        let config = try parse(conf)
        let shown = PagePlaylist.entries(of: config.items, kept: PageItemOptions.keptPerItem(ofConfigText: conf))
        #expect(shown[0].path == "/data/sync/")
        let text = PagePlaylist.text(PageItemOptions.carrying([PagePlaylistEntry(path: "/srv/kiosk/a.mp4"), PagePlaylistEntry(path: "/data/sync/")],
                                                              from: shown))
        #expect(text.contains("  - {sync: true, volume: 30}"), "\(text)")
        let merged = try PagePlaylist.merged(into: config, fileName: "/var/lib/kiosk/page.yaml", text: text,
                                             baseDirectory: "/srv/kiosk", fileSystem: files)
        #expect(merged.items.map(\.source) == [.file("/srv/kiosk/a.mp4"), .synced("/data/sync")])
        #expect(PagePlaylist.contents(ofText: text, syncDirectory: "/data/sync")?.items?.last?.path == "/data/sync/")
    }

    @Test(arguments: [("40", "40"), ("true", "true"), ("\"40\"", "\"40\""), ("a, b", "\"a, b\""), ("\"x: y\"", "\"x: y\""),
                      ("[1, 2]", "[1, 2]"), ("{type: fade, duration: 0.5}", "{type: fade, duration: 0.5}"), ("'it''s'", "\"it's\""),
                      ("-1.5", "-1.5"), ("\"\"", "\"\""), ("!!str 40", "\"40\""), ("0:30", "0:30"), ("~", "~")])
    func valuesAreWrittenAsFlowYAMLThatReadsTheSame(_ written: String, _ flow: String) throws {
        let node = try #require(try Yams.compose(yaml: "k: " + written)?.mapping?["k"])
        #expect(PageItemOptions.flow(node) == flow)
        let back = try #require(try Yams.compose(yaml: "k: " + flow)?.mapping?["k"])
        #expect(back.string == node.string && back.tag == node.tag, "\(back) read back for \(node)")
        #expect(PageItemOptions.flow(back) == flow, "and written again the same")
    }
}
