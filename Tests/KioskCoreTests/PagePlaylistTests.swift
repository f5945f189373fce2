import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// The web page's playlist file (#36): what the page sends is checked, written as YAML kiosk
/// reads with kiosk.conf's rules, and replaces the default playlist; `enabled: false` keeps an
/// item listed but unplayed.
@Suite("The web page's playlist")
struct PagePlaylistTests {
    let files = FakeFileSystem(files: ["/srv/kiosk/a.mp4", "/srv/kiosk/b.mp4", "/srv/kiosk/c d \"q\".mp4"])

    func parse(_ yaml: String) throws -> KioskConfig {
        try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk", fileSystem: files)
    }

    @Test func theFileWrittenIsReadBackAsTheSameEntries() throws {
        let entries = [PagePlaylistEntry(path: "/srv/kiosk/c d \"q\".mp4", title: "Menu: <b>\"today\"</b> #1", duration: 7.5, gravity: .fill),
                       PagePlaylistEntry(path: "https://cdn.example/x.m3u8?a=1&b=2"),
                       PagePlaylistEntry(path: "b.mp4", enabled: false)]
        let text = PagePlaylist.text(entries)
        #expect(PagePlaylist.contents(ofText: text)?.items == entries)
        #expect(PagePlaylist.contents(ofText: text)?.schedule == nil)
        let config = try PagePlaylist.merged(into: try parse("items: [a.mp4]\n"), fileName: "/var/lib/kiosk/page.yaml", text: text,
                                             baseDirectory: "/srv/kiosk", fileSystem: files)
        // The disabled one is not played; the rest replace kiosk.conf's items, with their keys.
        #expect(config.items.map(\.source) == [.file("/srv/kiosk/c d \"q\".mp4"), .url("https://cdn.example/x.m3u8?a=1&b=2")])
        #expect(config.items[0].title == "Menu: <b>\"today\"</b> #1")
        #expect(config.items[0].gravity == .fill)
        #expect(config.items[0].duration == MediaTime(seconds: 7.5))
    }

    @Test func whatThePageSendsIsChecked() {
        func refusal(_ json: String) -> String? {
            guard let value = ControlValue.parse(json) else { return "not JSON" }
            if case .failure(let error) = PagePlaylist.entries(from: value) { return error.description }
            return nil
        }
        #expect(refusal(#"{"items": [{"path": "a.mp4", "title": null, "duration": 5, "gravity": "resizeAspectFill"}]}"#) == nil)
        #expect(refusal(#"{"list": []}"#) == "expected {\"items\": [...]}")
        #expect(refusal(#"{"items": [{"path": ""}]}"#)?.contains("item 1: the path is empty") == true)
        #expect(refusal(#"{"items": [{"path": "a.mp4"}, {"path": "b\nc"}]}"#)?.contains("item 2") == true)
        #expect(refusal(#"{"items": [{"path": "a.mp4", "duration": -1}]}"#)?.contains("'duration' is -1") == true)
        #expect(refusal(#"{"items": [{"path": "a.mp4", "loop": 3}]}"#)?.contains("'loop'") == true)
        #expect(refusal(#"{"items": [{"path": "a.mp4", "enabled": false}]}"#) == "no item is enabled; at least one must play")
        #expect(refusal(#"{"items": [3]}"#) == "item 1 is not an object")
        let many = "{\"items\": [" + Array(repeating: #"{"path": "a.mp4"}"#, count: PagePlaylist.entryLimit + 1).joined(separator: ",") + "]}"
        #expect(refusal(many)?.contains("at most \(PagePlaylist.entryLimit)") == true)
    }

    @Test func anErrorInThePageFileNamesThatFileAndLine() throws {
        let text = "items:\n  - {path: a.mp4}\n  - {path: b.mp4, gravity: sideways}\n"
        #expect(throws: ConfigError.self) {
            try PagePlaylist.merged(into: try parse("items: [a.mp4]\n"), fileName: "/var/lib/kiosk/page.yaml", text: text,
                                    baseDirectory: "/srv/kiosk", fileSystem: files)
        }
        do {
            _ = try PagePlaylist.merged(into: try parse("items: [a.mp4]\n"), fileName: "/var/lib/kiosk/page.yaml", text: text,
                                        baseDirectory: "/srv/kiosk", fileSystem: files)
        } catch let error as ConfigError {
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics.first?.file == "/var/lib/kiosk/page.yaml")
            #expect(error.diagnostics.first?.line == 3)
        }
    }

    /// A page file that cannot be read fails `kiosk check` (and a reload), but `kiosk run`'s start
    /// sets it aside with its errors and plays kiosk.conf's own playlist: it never kept the screen dark.
    @Test func aBrokenPageFileIsSetAsideOnlyWhenAsked() throws {
        let folder = NSTemporaryDirectory() + "kiosk-page-aside-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "items: [a.mp4, b.mp4]\nweb: {page_file: page.yaml}\n".write(toFile: folder + "/kiosk.conf", atomically: true, encoding: .utf8)
        try "items: [\n  - broken: {{\n".write(toFile: folder + "/page.yaml", atomically: true, encoding: .utf8)
        let fileSystem = FakeFileSystem(files: [folder + "/a.mp4", folder + "/b.mp4", folder + "/c.mp4"])
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: folder + "/kiosk.conf", fileSystem: fileSystem) }
        var setAside: [ConfigDiagnostic] = []
        let config = try ConfigLoader.load(path: folder + "/kiosk.conf", fileSystem: fileSystem) { setAside += $0.diagnostics }
        #expect(config.items.map(\.source) == [.file(folder + "/a.mp4"), .file(folder + "/b.mp4")])
        #expect(setAside.count == 1 && setAside.first?.file == folder + "/page.yaml" && setAside.first?.line == 2, "\(setAside)")
        // A good page file is merged either way; kiosk.conf's own errors are never set aside.
        try "items: [c.mp4]\n".write(toFile: folder + "/page.yaml", atomically: true, encoding: .utf8)
        let merged = try ConfigLoader.load(path: folder + "/kiosk.conf", fileSystem: fileSystem) { _ in Issue.record("set aside") }
        #expect(merged.items.map(\.source) == [.file(folder + "/c.mp4")])
        try "items: [{path: a.mp4, gravity: sideways}]\nweb: {page_file: page.yaml}\n"
            .write(toFile: folder + "/kiosk.conf", atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: folder + "/kiosk.conf", fileSystem: fileSystem) { _ in } }
    }

    @Test func kioskConfsOwnItemsMayBeDisabledButNotAll() throws {
        let config = try parse("items:\n  - {path: a.mp4, enabled: false}\n  - b.mp4\n")
        #expect(config.items.map(\.source) == [.file("/srv/kiosk/b.mp4")])
        #expect(throws: ConfigError.self) { try parse("items:\n  - {path: a.mp4, enabled: false}\n") }
        #expect(throws: ConfigError.self) { try parse("items:\n  - {path: a.mp4, enabled: maybe}\n  - b.mp4\n") }
    }

    @Test func kioskConfsListIsWhatAPageWithoutAFileStartsFrom() throws {
        let config = try parse("items:\n  - {path: a.mp4, title: A, gravity: stretch}\n  - clips/\n  - 'https://x.example/live.m3u8'\n")
        #expect(PagePlaylist.entries(of: config.items) == [PagePlaylistEntry(path: "/srv/kiosk/a.mp4", title: "A", gravity: .stretch),
                                                           PagePlaylistEntry(path: "/srv/kiosk/clips/"),
                                                           PagePlaylistEntry(path: "https://x.example/live.m3u8")])
    }

    @Test func theScheduleIsKioskConfsKeysReadByItsRules() throws {
        let base = try parse("items: [a.mp4]\nplaylists:\n  lunch: [b.mp4]\nschedule:\n  timezone: UTC\n"
                             + "  entries:\n    - {name: old, playlist: lunch, from: '01:00', to: '02:00'}\n")
        let json = #"{"entries": [{"name": "lunch \"time\"", "playlist": "lunch", "days": "mon, wed", "from": "11:30", "to": "14:00", "#
            + #""dates_from": "2026-12-01", "dates_to": "2026-12-24", "priority": "2"}], "#
            + #""inserts": [{"name": "news", "at": "12:00", "days": "weekdays", "item": "b.mp4"}]}"#
        let value = try #require(ControlValue.parse(json))
        let schedule = try PageSchedule.from(value).get()
        // What GET answers, sent back as it came (it was refused: expected "entries": [...]).
        let answered = ControlValue.object([("schedule", schedule.controlValue), ("etag", .string("\"0\"")), ("source", .string("page"))])
        #expect(try PageSchedule.from(answered).get() == schedule)
        let text = PagePlaylist.text(nil, schedule: schedule)
        #expect(PagePlaylist.contents(ofText: text)?.schedule == schedule)
        #expect(PagePlaylist.contents(ofText: text)?.items == nil)
        let merged = try PagePlaylist.merged(into: base, fileName: "/p.yaml", text: text, baseDirectory: "/srv/kiosk", fileSystem: files)
        // The page's entries and inserts; kiosk.conf's zone and items stay.
        let names = merged.schedule.entries.map(\.name)
        #expect(names == ["lunch \"time\""])
        #expect(merged.schedule.entries.first?.priority == 2)
        #expect(merged.schedule.inserts.map(\.name) == ["news"])
        #expect(merged.schedule.timezone == "UTC")
        #expect(merged.items == base.items)
        // A wrong value is kiosk.conf's message, at the page file's line.
        let wrongValue = try #require(ControlValue.parse(#"{"entries": [{"playlist": "dinner", "from": "11:30"}], "inserts": []}"#))
        let wrong = try PageSchedule.from(wrongValue).get()
        let refusal = Result { () throws(ConfigError) -> KioskConfig in
            try PagePlaylist.merged(into: base, fileName: "/p.yaml", text: PagePlaylist.text(nil, schedule: wrong),
                                    baseDirectory: "/srv/kiosk", fileSystem: files)
        }
        guard case .failure(let error) = refusal else {
            Issue.record("an unknown playlist was taken")
            return
        }
        #expect(error.diagnostics.first?.file == "/p.yaml")
        #expect(error.diagnostics.first?.message.contains("dinner") == true)
        // Shape errors before any rule.
        #expect(shapeRefusal(#"{"entries": [{"colour": "red"}], "inserts": []}"#)?.contains("unknown key 'colour'") == true)
        #expect(shapeRefusal(#"{"entries": [{"name": "a\nb"}], "inserts": []}"#)?.contains("line break") == true)
    }

    /// The screen's on-windows (kiosk.conf's `display.power`) from the page: read by kiosk.conf's
    /// rules, replacing its windows; an empty list is always on; no "power" leaves them alone.
    @Test func theScreensWindowsAreDisplayPowerByItsRules() throws {
        let base = try parse("items: [a.mp4]\ndisplay: {power: [{days: weekdays, from: '07:00', to: '22:00'}]}\n")
        let weekend = try parse("items: [a.mp4]\ndisplay: {power: [{days: weekend, from: '09:00', to: '20:00', "
                                + "dates: {from: '2026-12-01', to: '2026-12-24'}}]}\n").display.power
        func merged(_ json: String) throws -> (schedule: PageSchedule, config: KioskConfig) {
            let schedule = try PageSchedule.from(try #require(ControlValue.parse(json))).get()
            let text = PagePlaylist.text(nil, schedule: schedule)
            #expect(PagePlaylist.contents(ofText: text)?.schedule == schedule, "\(text)")
            return (schedule, try PagePlaylist.merged(into: base, fileName: "/p.yaml", text: text, baseDirectory: "/srv/kiosk", fileSystem: files))
        }
        let windows = try merged(#"{"entries": [], "inserts": [], "power": [{"days": "weekend", "from": "09:00", "to": "20:00", "#
                                 + #""dates_from": "2026-12-01", "dates_to": "2026-12-24"}]}"#)
        #expect(windows.config.display.power == weekend && weekend.count == 1)
        #expect(windows.schedule.controlValue["power"]?.json
                == #"[{"days":"weekend","from":"09:00","to":"20:00","dates_from":"2026-12-01","dates_to":"2026-12-24"}]"#)
        #expect(try merged(#"{"entries": [], "inserts": [], "power": []}"#).config.display.power == [], "none: always on")
        let untouched = try merged(#"{"entries": [], "inserts": []}"#)
        #expect(untouched.schedule.power == nil && untouched.config.display.power == base.display.power)
        // A wrong window is kiosk.conf's message, at the page file's line.
        let wrong = try PageSchedule.from(try #require(ControlValue.parse(#"{"entries": [], "inserts": [], "power": [{"from": "25:00", "to": "26:00"}]}"#))).get()
        let refusal = Result { () throws(ConfigError) -> KioskConfig in
            try PagePlaylist.merged(into: base, fileName: "/p.yaml", text: PagePlaylist.text(nil, schedule: wrong),
                                    baseDirectory: "/srv/kiosk", fileSystem: files)
        }
        guard case .failure(let error) = refusal else {
            Issue.record("a window at 25:00 was taken")
            return
        }
        #expect(error.diagnostics.first?.file == "/p.yaml" && error.diagnostics.first?.message.contains("25:00") == true,
                "\(error.diagnostics)")
        #expect(shapeRefusal(#"{"entries": [], "inserts": [], "power": [{"playlist": "x"}]}"#)?.contains("window 1: unknown key 'playlist'") == true)
    }

    /// A page file edited by hand to hold only the screen's windows: kiosk.conf's entries stay in
    /// force, and a playlist save (which writes the file again) does not add an empty schedule.
    @Test func aFileWithOnlyTheWindowsLeavesTheEntriesToKioskConf() throws {
        let base = try parse("items: [a.mp4]\nschedule:\n  entries:\n    - {name: old, playlist: default, from: '01:00', to: '02:00'}\n")
        let text = "items: [b.mp4]\ndisplay:\n  power: [{days: weekend, from: '09:00', to: '20:00'}]\n"
        let read = try #require(PagePlaylist.contents(ofText: text))
        let schedule = try #require(read.schedule)
        #expect(!schedule.scheduled && schedule.power?.count == 1 && schedule.entries.isEmpty)
        let written = PagePlaylist.text(read.items, schedule: schedule)
        #expect(!written.contains("schedule:") && written.contains("power:"), "\(written)")
        let merged = try PagePlaylist.merged(into: base, fileName: "/p.yaml", text: written, baseDirectory: "/srv/kiosk", fileSystem: files)
        #expect(merged.schedule.entries.map(\.name) == ["old"])
        #expect(merged.display.power.count == 1)
    }

    func shapeRefusal(_ json: String) -> String? {
        guard let value = ControlValue.parse(json) else { return "not JSON" }
        switch PageSchedule.from(value) {
        case .success: return nil
        case .failure(let error): return error.description
        }
    }

    @Test func theTagFollowsTheBytes() {
        #expect(PagePlaylist.tag(of: []) == "\"cbf29ce484222325\"")
        #expect(PagePlaylist.tag(of: Array("a".utf8)) != PagePlaylist.tag(of: Array("b".utf8)))
        #expect(PagePlaylist.tag(of: Array("items".utf8)) == PagePlaylist.tag(of: Array("items".utf8)))
    }

    @Test func thePlaylistFileIsNeverKioskConfItself() throws {
        let path = FileManager.default.currentDirectoryPath + "/kiosk.conf"
        #expect(throws: ConfigError.self) { try parse("items: [a.mp4]\nweb: {page_file: '\(path)'}\n") }
        let web = try #require(try parse("items: [a.mp4]\nweb: {page_file: page.yaml}\n").web)
        #expect(web.pageFile == "/srv/kiosk/page.yaml")
    }
}
