import Foundation
import Testing
@testable import KioskBasics
@testable import KioskPicture
@testable import KioskPolicy

/// What a ticker's RSS or Atom feed and a CAP alert feed (a network's, so anyone's on the way)
/// may hold, damaged (`ByteDamage`): reading ends, the titles stay within their bounds, and
/// what the alert book keeps across a restart comes back as it was written.
private let feedTokens = ["<item>", "</item>", "<entry>", "</entry>", "<title>", "</title>", "<atom:title>", "<title type=\"html\">",
                          "&lt;b&gt;", "<alert>", "</alert>", "<identifier>", "</identifier>", "<sender>", "</sender>", "a,b",
                          "\t", " ", "<references>", "x,y,2026-11-26T10:00:00Z", "<status>Actual</status>",
                          "<msgType>Cancel</msgType>", "<msgType>Update</msgType>", "<expires>9999-12-31T23:59:59+23:59</expires>",
                          "<sent>2026-02-30T10:00:00Z</sent>", "<area>", "</area>", "<info>", "</info>", "<link href=\"http://x/a.xml\"/>"]
private let feedChunks = ["<item><title>x</title></item>", "<entry>", "<title>", "<a>", "<alert><identifier>i</identifier></alert>",
                          "<info><area><areaDesc>Berlin</areaDesc></area></info>", "&amp;"]

@Suite("Feeds: damaged and hostile RSS, Atom and CAP")
struct FeedFuzzTests {
    static let rss = """
        <?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
        <item><title>Lunch &amp; dinner</title><link>http://x</link></item>
        <item><title><![CDATA[Opening <b>hours</b>]]></title></item>
        <item><title>Caf&#233; &#x1F3AC;</title></item></channel></rss>
        """
    static let atom = """
        <?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Feed</title>
        <entry><title type="html">&lt;b&gt;Bold&lt;/b&gt; news</title></entry><entry><atom:title>Second</atom:title></entry></feed>
        """
    static func alert(_ id: String, sender: String = "fire@example.org", type: String = "Alert", references: String = "") -> String {
        """
        <alert xmlns="urn:oasis:names:tc:emergency:cap:1.2"><identifier>\(id)</identifier><sender>\(sender)</sender>
        <sent>2026-11-26T14:39:01-05:00</sent><status>Actual</status><msgType>\(type)</msgType><scope>Public</scope>
        \(references.isEmpty ? "" : "<references>\(references)</references>")
        <info><event>Fire</event><urgency>Immediate</urgency><severity>Extreme</severity><expires>2026-11-26T18:00:00-05:00</expires>
        <headline>Evacuate</headline><instruction>Use the east exit</instruction><area><areaDesc>Berlin</areaDesc></area></info></alert>
        """
    }
    static let capFeed = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><content type=\"text/xml\">" + alert("A1")
        + "</content></entry><entry><content>" + alert("A2", type: "Cancel", references: "fire@example.org,A1,2026-11-26T14:39:01-05:00")
        + "</content></entry></feed>"
    /// 2026-11-26T19:40:01Z: after both were sent, before they expire.
    static let now: Int64 = 1_795_722_001

    /// A book that took `alerts` and one restored from what it exported, after a restart.
    static func restartProblems(_ alerts: [CapAlert]) -> [String] {
        var book = CapAlertBook(filter: .init())
        _ = book.take(alerts, now: now)
        var restored = CapAlertBook(filter: .init())
        restored.restore(book.exported.joined(separator: "\n").split(separator: "\n").map(String.init))
        var found: [String] = []
        if restored.exported != book.exported { found.append("restored \(restored.exported) of \(book.exported)") }
        if restored.active != book.active { found.append("active \(restored.active) of \(book.active)") }
        return found
    }

    @Test func theSeedsAreRead() throws {
        #expect(try FeedTitles.parse(Array(Self.rss.utf8)) == ["Lunch & dinner", "Opening hours", "Café 🎬"], "CDATA markup dropped as a title's")
        #expect(try FeedTitles.parse(Array(Self.atom.utf8)) == ["Bold news", "Second"])
        let document = CapAlert.read(try BoundedXML.parse(Self.capFeed))
        #expect(document.alerts.map(\.key.identifier) == ["A1", "A2"] && document.problems.isEmpty)
        #expect(Self.restartProblems(document.alerts) == [])
    }

    /// A sender or identifier with commas, tabs or line breaks (CAP forbids them) is still
    /// shown, once, also after a restart; it cannot write a second key into the restart file.
    @Test func aKeyWithCommasAndBreaksStaysOneLine() throws {
        let forged = "x\t9999999999\t1\nother@example.org,B7,2026-11-26T14:39:01-05:00"
        let document = CapAlert.read(try BoundedXML.parse(Self.alert(forged, sender: "Fire Dept, Berlin")))
        let alert = try #require(document.alerts.first)
        #expect(alert.key.sender == "Fire%20Dept%2C%20Berlin")
        #expect(!alert.key.identifier.contains { $0.isWhitespace || $0 == "," })
        #expect(document.problems.count == 2 && document.problems.allSatisfy { $0.contains("which CAP forbids") }, "\(document.problems)")
        var book = CapAlertBook(filter: .init())
        guard case .show? = book.take([alert], now: Self.now).first else { Issue.record("not shown"); return }
        #expect(book.exported.count == 1 && !book.exported[0].contains("\n"))
        var restored = CapAlertBook(filter: .init())
        restored.restore(book.exported.joined(separator: "\n").split(separator: "\n").map(String.init))
        #expect(restored.exported == book.exported)
        #expect(restored.take([alert], now: Self.now + 60) == [], "seen before the restart: not shown again")
        let other = CapAlert.read(try BoundedXML.parse(Self.alert("B7", sender: "other@example.org"))).alerts
        guard case .show? = restored.take(other, now: Self.now + 60).first else { Issue.record("the forged key kept B7 off"); return }
    }

    /// 600 damaged feeds (200 of each seed): titles within their bounds, alerts with keys that
    /// stay one triple, a book that comes back from its file as it was.
    @Test func damagedFeedsAreReadWithinBounds() {
        var random = SeededGenerator(state: 0xFEED_0035)
        var failures: [String] = []
        for (name, seed) in [("rss", Self.rss), ("atom", Self.atom), ("cap", Self.capFeed)] {
            for run in 0..<200 {
                var bytes = Array(seed.utf8)
                let done = ByteDamage.damage(&bytes, tokens: feedTokens, chunks: feedChunks, using: &random)
                var found: [String] = []
                if let titles = try? FeedTitles.parse(bytes) {
                    if titles.count > FeedTitles.maxTitles { found.append("\(titles.count) titles") }
                    for title in titles where title.isEmpty || title.count > FeedTitles.maxTitleLength || title.contains(where: \.isNewline) {
                        found.append("title \(title.prefix(80).debugDescription)")
                    }
                }
                if let root = try? BoundedXML.parse(bytes) {
                    let document = CapAlert.read(root)
                    for alert in document.alerts {
                        let parts = [alert.key.sender, alert.key.identifier, alert.key.sent]
                        if CapAlert.Key(reference: alert.key.description) != alert.key || parts.contains(where: { $0.contains { $0.isWhitespace } }) {
                            found.append("key \(alert.key.description.debugDescription)")
                        }
                    }
                    if document.problems.count > root.descendants("alert").count * 3 { found.append("\(document.problems.count) problems") }
                    found += Self.restartProblems(document.alerts)
                }
                if !found.isEmpty { failures.append("\(name) run \(run) \(done): \(found.prefix(3))") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) feeds: \(failures.prefix(5))")
    }
}
