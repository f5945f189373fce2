import Foundation
import KioskCore
import KioskTestSupport
import Logging
import Synchronization
import Testing
@testable import KioskService

/// `alerts.cap` polled through a fake fetch: an alert puts the override on screen with its
/// words in the text layer, a repeat does nothing, a Cancel gives the loop back and hides the
/// words, a 304 or a broken feed changes nothing (one line), and what was acted on outlives a
/// restart.
@Suite(.serialized) struct CapPollerTests {
    /// What the fake server answers next, per URL.
    private final class Server: @unchecked Sendable {
        let answers = Mutex<[String: FeedFetchResult]>([:])
        func set(_ url: String, _ text: String?) {
            answers.withLock { $0[url] = text.map { .body(Array($0.utf8), etag: nil) } ?? .notModified }
        }
        let asked = Mutex<[String]>([])
        var fetch: FeedFetch {
            { [self] url, _, _, _ in
                asked.withLock { $0.append(url) }
                return answers.withLock { $0[url] } ?? .failed("HTTP 404")
            }
        }
    }

    private static let location = SourceLocation(file: "kiosk.conf", line: 1, column: 1)

    private static func alert(_ id: String, type: String = "Alert", references: String? = nil) -> String {
        let sent = "2026-11-26T10:00:00-05:00"
        let expires = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
        return """
        <alert xmlns="urn:oasis:names:tc:emergency:cap:1.2"><identifier>\(id)</identifier><sender>s@example</sender>
        <sent>\(sent)</sent><status>Actual</status><msgType>\(type)</msgType><scope>Public</scope>
        \(references.map { "<references>\($0)</references>" } ?? "")
        <info><event>Fire</event><urgency>Immediate</urgency><severity>Extreme</severity><certainty>Observed</certainty>
        <expires>\(expires)</expires><headline>Fire in hall B</headline><instruction>Use the east exit</instruction></info></alert>
        """
    }

    private func make(_ server: Server, sink: RecordingRequests, statePath: String? = nil) -> (CapPoller, OverrideDesk) {
        let table = OverrideSet([OverrideConfig(name: "evacuate", content: .item(0), priority: 100, location: Self.location)],
                                defaultEntries: [PlaylistEntry(media: .file("/m/e.mp4"), item: ItemConfig(source: .file("/m/e.mp4"),
                                                                                                           location: Self.location), itemIndex: 0)],
                                playlists: [:]) { _ in ([], []) }
        let desk = OverrideDesk(table, sink: sink, statePath: nil, logger: CapturedLog().logger)
        let config = CapFeedConfig(url: "https://a.example/cap.atom", override: "evacuate", textLayer: "alert")
        return (CapPoller(config, desk: desk, sink: sink, fetch: server.fetch, statePath: statePath, logger: CapturedLog().logger), desk)
    }

    private func summary(_ requests: [PlayerRequest]) -> [String] {
        requests.map {
            switch $0 {
            case .showOverride(let name, _, _): "show \(name)"
            case .endOverride: "end"
            case .layer(let name, .text(let text)): "\(name) text \(text)"
            case .layer(let name, .show): "\(name) show"
            case .layer(let name, .hide): "\(name) hide"
            default: "\($0)"
            }
        }
    }

    @Test func anAlertShowsItsOverrideAndWordsUntilItsCancel() {
        let server = Server()
        let sink = RecordingRequests()
        let (poller, _) = make(server, sink: sink)
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("one"))</feed>")
        poller.poll()
        let key = "s@example,one,2026-11-26T10:00:00-05:00"
        #expect(summary(sink.requests) == ["show \(key)", "alert text Fire in hall B: Use the east exit", "alert show"])
        poller.poll()   // the same feed again: nothing new
        server.set("https://a.example/cap.atom", nil)   // 304
        poller.poll()
        #expect(sink.requests.count == 3)
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("one"))\(Self.alert("c", type: "Cancel", references: key))</feed>")
        poller.poll()
        #expect(summary(sink.requests).suffix(2) == ["end", "alert hide"])
    }

    /// An Update takes its alert's place in one step: the playlist never comes back between
    /// them (it did for a frame, and proof of play logged an interrupted play).
    @Test func anUpdateReplacesItsAlertWithoutThePlaylistBetween() {
        let server = Server()
        let sink = RecordingRequests()
        let (poller, _) = make(server, sink: sink)
        let key = "s@example,one,2026-11-26T10:00:00-05:00"
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("one"))</feed>")
        poller.poll()
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("one"))\(Self.alert("u", type: "Update", references: key))</feed>")
        poller.poll()
        #expect(summary(sink.requests) == ["show \(key)", "alert text Fire in hall B: Use the east exit", "alert show",
                                          "show s@example,u,2026-11-26T10:00:00-05:00"])
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("c", type: "Cancel", references: "s@example,u,2026-11-26T10:00:00-05:00"))</feed>")
        poller.poll()
        #expect(summary(sink.requests).suffix(2) == ["end", "alert hide"], "the update ends at its own Cancel")
    }

    /// `override_cancel evacuate` ends what an alert put on with evacuate (it said "not on": the
    /// alert's override is named by its CAP key), and the alert's words leave with it.
    @Test func cancellingTheOverrideByItsNameEndsTheAlertsAndTheirWords() {
        let server = Server()
        let sink = RecordingRequests()
        let (poller, desk) = make(server, sink: sink)
        server.set("https://a.example/cap.atom", "<feed>\(Self.alert("one"))</feed>")
        poller.poll()
        #expect(desk.cancel("evacuate") == nil)
        #expect(desk.cancel("evacuate") == "override 'evacuate' is not on")
        poller.takePushed()
        #expect(Array(summary(sink.requests).suffix(2)) == ["end", "alert hide"])
        poller.poll()   // the feed still holds it: acted on once, not shown again
        #expect(Array(summary(sink.requests).suffix(2)) == ["end", "alert hide"])
    }

    @Test func aFeedThatOnlyLinksHasItsAlertsFetchedAndABrokenOneChangesNothing() {
        let server = Server()
        let sink = RecordingRequests()
        let (poller, _) = make(server, sink: sink)
        server.set("https://a.example/cap.atom", #"<feed><entry><link href="https://a.example/1.cap"/></entry></feed>"#)
        server.set("https://a.example/1.cap", Self.alert("linked"))
        poller.poll()
        #expect(summary(sink.requests).first == "show s@example,linked,2026-11-26T10:00:00-05:00")
        poller.poll()
        #expect(server.asked.withLock { $0.filter { $0 == "https://a.example/1.cap" }.count } == 1,
                "a linked alert read once is not fetched again")
        server.set("https://a.example/cap.atom", "<html>503")
        poller.poll()
        server.answers.withLock { $0["https://a.example/cap.atom"] = .failed("HTTP 503") }
        poller.poll()
        #expect(sink.requests.count == 3, "the alert stays on: \(summary(sink.requests))")
    }

    /// `cap XML` (a webhook, `kiosk ctl cap FILE`): read at once (garbage and alert-less documents
    /// refused with the reason, nothing shown), acted on like a polled alert, its Cancel too; a
    /// repeat of a pushed alert, pushed or polled, shows nothing new.
    @Test func aPushedAlertIsTakenAsAPolledOne() {
        let server = Server()
        let sink = RecordingRequests()
        let (poller, _) = make(server, sink: sink)
        #expect(poller.take("<html>not xml") != nil)
        #expect(poller.take("<feed></feed>") == "no CAP alert in it")
        poller.takePushed()
        #expect(sink.requests.isEmpty)
        #expect(poller.take(Self.alert("pushed")) == nil)
        #expect(sink.requests.isEmpty, "acted on by the poll thread, not the asker's")
        poller.takePushed()
        let key = "s@example,pushed,2026-11-26T10:00:00-05:00"
        #expect(summary(sink.requests) == ["show \(key)", "alert text Fire in hall B: Use the east exit", "alert show"])
        server.set("https://a.example/cap.atom", Self.alert("pushed"))
        poller.poll()
        #expect(poller.take(Self.alert("pushed")) == nil)
        poller.takePushed()
        #expect(sink.requests.count == 3, "the same alert again: nothing new")
        #expect(poller.take(Self.alert("c", type: "Cancel", references: key)) == nil)
        poller.takePushed()
        #expect(summary(sink.requests).suffix(2) == ["end", "alert hide"])
    }

    @Test func whatWasActedOnOutlivesARestart() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-cap-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = Server()
        server.set("https://a.example/cap.atom", Self.alert("one"))
        let first = RecordingRequests()
        make(server, sink: first, statePath: path).0.poll()
        #expect(first.requests.count == 3)
        let second = RecordingRequests()
        make(server, sink: second, statePath: path).0.poll()
        // Shown before the restart: its override not again (the desk keeps what is on); its words
        // are put back in the layer.
        #expect(summary(second.requests) == ["alert text Fire in hall B: Use the east exit", "alert show"])
        // Started again, the words of the alert still on come back with it (they stayed hidden).
        let third = RecordingRequests()
        let restarted = make(server, sink: third, statePath: path).0
        restarted.start()
        restarted.stop()
        #expect(Array(summary(third.requests).prefix(3)) == ["alert hide", "alert text Fire in hall B: Use the east exit", "alert show"])
        // Words with a tab, a line break and a % keep them through the file.
        let words = "50%\toff\nnow"
        #expect(CapPoller.restoredWords(["shown\ts@example,a,2026-11-26T10:00:00-05:00\t\(Int64.max)\t\(CapPoller.escaped(words))"],
                                        active: [CapAlert.Key(sender: "s@example", identifier: "a", sent: "2026-11-26T10:00:00-05:00")],
                                        now: 0).map(\.text) == [words])
    }
}
