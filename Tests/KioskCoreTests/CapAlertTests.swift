import Foundation
@testable import KioskPolicy
import Testing

/// A CAP 1.2 alert as senders write them (the OASIS example's shape), with what varies.
private func capAlert(id: String = "KSTO1055887203", sender: String = "KSTO@NWS.NOAA.GOV", sent: String = "2026-11-26T10:00:00-05:00",
                      status: String = "Actual", type: String = "Alert", references: String? = nil,
                      severity: String = "Severe", urgency: String = "Immediate", expires: String? = "2026-11-26T12:00:00-05:00",
                      area: String? = "Berlin Mitte", prefix: String = "") -> String {
    let p = prefix.isEmpty ? "" : prefix + ":"
    return """
    <\(p)alert xmlns\(prefix.isEmpty ? "" : ":" + prefix)="urn:oasis:names:tc:emergency:cap:1.2">
      <\(p)identifier>\(id)</\(p)identifier>
      <\(p)sender>\(sender)</\(p)sender>
      <\(p)sent>\(sent)</\(p)sent>
      <\(p)status>\(status)</\(p)status>
      <\(p)msgType>\(type)</\(p)msgType>
      <\(p)scope>Public</\(p)scope>
      \(references.map { "<\(p)references>\($0)</\(p)references>" } ?? "")
      <\(p)info>
        <\(p)category>Met</\(p)category>
        <\(p)event>SEVERE THUNDERSTORM</\(p)event>
        <\(p)urgency>\(urgency)</\(p)urgency>
        <\(p)severity>\(severity)</\(p)severity>
        <\(p)certainty>Observed</\(p)certainty>
        \(expires.map { "<\(p)expires>\($0)</\(p)expires>" } ?? "")
        <\(p)headline>SEVERE THUNDERSTORM WARNING</\(p)headline>
        <\(p)description>A storm &amp; hail.</\(p)description>
        <\(p)instruction><![CDATA[Use the east exit <now>]]></\(p)instruction>
        \(area.map { "<\(p)area><\(p)areaDesc>\($0)</\(p)areaDesc><\(p)geocode><\(p)valueName>SAME</\(p)valueName><\(p)value>006113</\(p)value></\(p)geocode></\(p)area>" } ?? "")
      </\(p)info>
    </\(p)alert>
    """
}

private func read(_ text: String) throws -> CapAlert.Document {
    CapAlert.read(try BoundedXML.parse(text))
}

/// 2026-11-26T15:00:00Z = 10:00 at -05:00.
private let sentSeconds: Int64 = 1_795_705_200

@Suite("Bounded XML: untrusted documents read safely")
struct BoundedXMLTests {
    @Test func readsElementsTextAttributesEntitiesAndCDATA() throws {
        let root = try BoundedXML.parse("""
        <?xml version="1.0"?><!-- c --><a:feed xmlns:a="x" kind='one &amp; "two"'><entry><title>A &lt;b&gt; &#233;&#x41;</title>\
        <link href="http://h/1?a=1&amp;b=2" rel="alternate"/><content><![CDATA[<raw> & ]]></content></entry></a:feed>
        """)
        #expect(root.name == "feed")
        #expect(root.attributes["kind"] == "one & \"two\"")
        let entry = try #require(root.child("entry"))
        #expect(entry.value("title") == "A <b> éA")
        #expect(entry.child("link")?.attributes["href"] == "http://h/1?a=1&b=2")
        #expect(entry.child("content")?.text == "<raw> & ")
    }

    @Test func aDTDsEntitiesAreNeverExpanded() throws {
        let laughs = """
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
        <lolz>&lol2;</lolz>
        """
        let root = try BoundedXML.parse(laughs)
        #expect(root.name == "lolz")
        #expect(root.text == "&lol2;")
    }

    @Test func limitsAndBrokenDocuments() throws {
        #expect(throws: BoundedXML.Problem.noRootElement) { try BoundedXML.parse("just text") }
        #expect(throws: BoundedXML.Problem.noRootElement) { try BoundedXML.parse([UInt8]()) }
        let deep = String(repeating: "<a>", count: BoundedXML.maxDepth + 1)
        #expect(throws: BoundedXML.Problem.tooLarge("nested over \(BoundedXML.maxDepth) levels")) { try BoundedXML.parse(deep) }
        // Cut short: what was read, closed.
        let cut = try BoundedXML.parse("<alert><identifier>x</identifier><info><headline>h")
        #expect(cut.value("identifier") == "x")
        #expect(cut.child("info")?.value("headline") == "h")
        // A stray closing tag is skipped; a close of an outer element closes the inner ones.
        let stray = try BoundedXML.parse("<a></b><c>1</a>")
        #expect(stray.child("c")?.text == "1")
    }
}

@Suite("CAP 1.2 alerts: read from an alert or a feed")
struct CapAlertReadingTests {
    @Test func readsOneAlert() throws {
        let document = try read(capAlert())
        #expect(document.problems.isEmpty)
        let alert = try #require(document.alerts.first)
        #expect(alert.key == CapAlert.Key(sender: "KSTO@NWS.NOAA.GOV", identifier: "KSTO1055887203", sent: "2026-11-26T10:00:00-05:00"))
        #expect(alert.status == .actual && alert.messageType == .alert)
        let info = try #require(alert.infos.first)
        #expect(info.severity == .severe && info.urgency == .immediate)
        #expect(info.expires == sentSeconds + 7200)
        #expect(info.description == "A storm & hail.")
        #expect(info.instruction == "Use the east exit <now>")
        #expect(info.areas == [["Berlin Mitte", "006113"]])
    }

    @Test func readsPrefixedAlertsInAnAtomFeedAndLinksOfOthers() throws {
        let feed = """
        <feed xmlns="http://www.w3.org/2005/Atom"><title>alerts</title>
        <entry><content type="text/xml">\(capAlert(id: "one", prefix: "cap"))</content></entry>
        <entry><content type="text/xml">\(capAlert(id: "two"))</content></entry></feed>
        """
        #expect(try read(feed).alerts.map(\.key.identifier) == ["one", "two"])
        let linked = """
        <feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" href="https://a.example/1.cap" type="application/cap+xml"/></entry>
        <entry><link href="https://a.example/2.cap"/></entry></feed>
        """
        #expect(try read(linked).links == ["https://a.example/1.cap", "https://a.example/2.cap"])
        // A quiet feed: nothing, and no problem (Xibo read it as a Test).
        let quiet = try read("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>none</title></feed>")
        #expect(quiet.alerts.isEmpty && quiet.links.isEmpty && quiet.problems.isEmpty)
    }

    @Test func anUnreadableAlertIsOneLineAndTheOthersRead() throws {
        let broken = capAlert(id: "bad").replacingOccurrences(of: "<sender>KSTO@NWS.NOAA.GOV</sender>", with: "")
        let document = try read("<feed>\(broken)\(capAlert(id: "good"))\(capAlert(id: "late", sent: "yesterday"))</feed>")
        #expect(document.alerts.map(\.key.identifier) == ["good"])
        #expect(document.problems == ["alert 1 (bad): no <sender>", "alert 3 (late): <sent> yesterday is not a CAP date and time"])
        let cancel = try read(capAlert(id: "c", type: "Cancel"))
        #expect(cancel.problems == ["alert 1 (c): Cancel without <references> naming what it changes"])
    }

    @Test func capTimes() {
        #expect(CapTime.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(CapTime.seconds("2026-11-26T10:00:00-05:00") == sentSeconds)
        #expect(CapTime.seconds("2026-11-26T16:00:00+01:00") == sentSeconds)
        #expect(CapTime.seconds("2000-02-29T00:00:00+00:00") == 951_782_400)
        #expect(CapTime.seconds("2026-11-26T10:00:00") == nil, "CAP requires the zone")
        #expect(CapTime.seconds("2026-13-01T00:00:00Z") == nil)
        #expect(CapTime.seconds("soon") == nil)
        // Days a month does not have (2026-11-31 was read as December 1st).
        #expect(CapTime.seconds("2026-11-31T10:00:00Z") == nil)
        #expect(CapTime.seconds("2026-02-29T10:00:00Z") == nil && CapTime.seconds("1900-02-29T10:00:00Z") == nil)
        #expect(CapTime.seconds("2024-02-29T00:00:00Z") != nil && CapTime.seconds("2026-12-31T00:00:00Z") != nil)
        #expect(CapTime.seconds("2026-12-31T25:00:00Z") == nil)
        // And back, for the log.
        for text in ["1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "2000-03-01T00:00:00Z", "1969-12-31T23:59:59Z",
                     "2100-12-31T12:34:56Z", "1600-02-29T01:02:03Z"] {
            #expect(CapTime.seconds(text).map(CapTime.text) == text)
        }
    }

    /// An `<expires>` that is not a time: the alert still shows (for the default duration), and
    /// one line says why it lasts that long (it was silent).
    @Test func anUnreadableExpiryIsSaidAndTheAlertStillShows() throws {
        let document = try read(capAlert(id: "x1", expires: "2026-12-31T25:00:00+00:00"))
        #expect(document.alerts.count == 1 && document.alerts[0].infos[0].expires == nil)
        #expect(document.problems == ["alert 1 (x1): <expires> 2026-12-31T25:00:00+00:00 is not a CAP date and time; "
                                      + "shown for the default duration"])
        let sentBad = try read(capAlert(id: "x2", sent: "2026-11-31T10:00:00+00:00"))
        #expect(sentBad.alerts.isEmpty && sentBad.problems == ["alert 1 (x2): <sent> 2026-11-31T10:00:00+00:00 is not a CAP date and time"])
    }
}

@Suite("CAP alerts: what is shown, ended and ignored")
struct CapAlertBookTests {
    private let now = sentSeconds + 60

    private func alerts(_ text: String) throws -> [CapAlert] { try read(text).alerts }

    @Test func anAlertShowsOnceHoweverOftenTheFeedRepeatsIt() throws {
        var book = CapAlertBook(filter: .init(areas: ["Berlin"]))
        let first = book.take(try alerts(capAlert()), now: now)
        guard case .show(let notice)? = first.first, first.count == 1 else { Issue.record("\(first)"); return }
        #expect(notice.text == "Use the east exit <now>" && notice.headline == "SEVERE THUNDERSTORM WARNING")
        #expect(notice.expires == sentSeconds + 7200)
        #expect(book.take(try alerts(capAlert()), now: now + 30).isEmpty)
        // Across a restart too.
        var again = CapAlertBook(filter: .init(areas: ["Berlin"]))
        again.restore(book.exported)
        #expect(again.take(try alerts(capAlert()), now: now + 60).isEmpty)
        #expect(again.active == book.active)
    }

    @Test func onlyActualIsShownTheOthersSayWhyOnce() throws {
        var book = CapAlertBook(filter: .init())
        for status in ["Test", "Exercise", "System", "Draft"] {
            let actions = book.take(try alerts(capAlert(id: status, status: status)), now: now)
            #expect(actions == [.note("CAP alert KSTO@NWS.NOAA.GOV,\(status),2026-11-26T10:00:00-05:00: status \(status), not shown")])
        }
        #expect(book.take(try alerts(capAlert(id: "Test", status: "Test")), now: now).isEmpty)
        #expect(book.active.isEmpty)
    }

    @Test func anUpdateReplacesAndACancelEndsWithoutStartingAnything() throws {
        var book = CapAlertBook(filter: .init())
        let original = try alerts(capAlert())[0]
        _ = book.take([original], now: now)
        let update = try alerts(capAlert(id: "u1", sent: "2026-11-26T10:05:00-05:00", type: "Update",
                                         references: original.key.description))[0]
        let updated = book.take([update], now: now + 300)
        // One step: the update shows and names what it replaces (ended first, the playlist came
        // back between the two).
        #expect(updated.count == 1)
        guard case .show(let notice)? = updated.last else { Issue.record("\(updated)"); return }
        #expect(notice.key == update.key && notice.replaces == [original.key])
        #expect(book.active == [update.key])
        let cancel = try alerts(capAlert(id: "c1", sent: "2026-11-26T10:10:00-05:00", type: "Cancel",
                                         references: "other,x,2026-11-26T09:00:00-05:00 \(update.key)"))
        #expect(book.take(cancel, now: now + 600) == [.end(update.key, why: "cancelled by \(cancel[0].key)")])
        #expect(book.active.isEmpty)
    }

    @Test func anUpdateThatIsNotShownStillEndsWhatItUpdates() throws {
        var book = CapAlertBook(filter: .init())
        let original = try alerts(capAlert())[0]
        _ = book.take([original], now: now)
        let update = try alerts(capAlert(id: "u2", sent: "2026-11-26T10:05:00-05:00", type: "Update",
                                         references: original.key.description))[0]
        // Past its end when it comes: not shown, and the alert it updates is over all the same.
        let late = book.take([update], now: now + 10 * 86_400)
        #expect(late.first == .end(original.key, why: "updated by \(update.key)"))
        #expect(late.count == 2 && book.active.isEmpty, "\(late)")
    }

    @Test func aCancelBeforeItsAlertKeepsTheAlertOff() throws {
        var book = CapAlertBook(filter: .init())
        let original = try alerts(capAlert())[0]
        let cancel = try alerts(capAlert(id: "c1", type: "Cancel", references: original.key.description))
        #expect(book.take(cancel, now: now).isEmpty)
        #expect(book.take([original], now: now + 30).isEmpty)
        // Both in one poll: ordered by `sent`, the cancel (sent later) ends the alert it follows.
        var other = CapAlertBook(filter: .init())
        let later = try alerts(capAlert(id: "c2", sent: "2026-11-26T10:01:00-05:00", type: "Cancel", references: original.key.description))
        let actions = other.take(later + [original], now: now)
        #expect(actions.count == 2 && actions.last == .end(original.key, why: "cancelled by \(later[0].key)"))
    }

    @Test func filtersExpiryAndADefaultDuration() throws {
        var book = CapAlertBook(filter: .init(areas: ["Hamburg"], minSeverity: .severe, minUrgency: .expected, defaultDuration: 900))
        let key = "KSTO@NWS.NOAA.GOV,%@,2026-11-26T10:00:00-05:00"
        func note(_ id: String, _ why: String) -> CapAlertBook.Action {
            .note("CAP alert \(key.replacingOccurrences(of: "%@", with: id)): \(why), not shown")
        }
        #expect(book.take(try alerts(capAlert(id: "a")), now: now) == [note("a", "outside the areas Hamburg")])
        #expect(book.take(try alerts(capAlert(id: "b", severity: "Moderate", area: "Hamburg")), now: now)
                == [note("b", "severity below Severe")])
        #expect(book.take(try alerts(capAlert(id: "c", urgency: "Future", area: nil)), now: now)
                == [note("c", "urgency below Expected")])
        #expect(book.take(try alerts(capAlert(id: "d", expires: "2026-11-26T10:00:30-05:00", area: "HAMBURG-Nord")), now: now)
                == [note("d", "expired at 2026-11-26T15:00:30Z (now 2026-11-26T15:01:00Z)")])
        // No <area>: everywhere; no <expires>: the default duration from now.
        let shown = book.take(try alerts(capAlert(id: "e", expires: nil, area: nil)), now: now)
        guard case .show(let notice)? = shown.first else { Issue.record("\(shown)"); return }
        #expect(notice.expires == now + 900)
        // A geocode names an area as well as its description.
        var byCode = CapAlertBook(filter: .init(areas: ["006113"]))
        #expect(byCode.take(try alerts(capAlert(id: "f")), now: now).count == 1)
    }
}

@Suite("Overrides: which one has the screen")
struct OverrideBookTests {
    typealias Book = OverrideBook<String>

    private func entry(_ id: String, _ priority: Int, expires: Double? = nil) -> Book.Entry {
        Book.Entry(id: id, priority: priority, expires: expires, payload: id)
    }

    @Test func highestPriorityShowsNewestAmongEqualsLowerWaits() {
        var book = Book()
        let first = book.start(entry("fire", 100), at: 0)
        #expect(book.showing?.id == "fire")
        #expect(first == .show(book.showing!))
        #expect(book.start(entry("promo", 10, expires: 50), at: 1) == .unchanged, "lower: queued")
        guard case .show(let newer) = book.start(entry("flood", 100), at: 2) else { Issue.record("equal: newest wins"); return }
        #expect(newer.id == "flood")
        guard case .show(let back) = book.cancel("flood") else { Issue.record("the one before comes back"); return }
        #expect(back.id == "fire")
        #expect(book.cancel("promo") == .unchanged, "a waiting one ends unseen")
        #expect(book.cancel("fire") == .resumePlaylist)
        #expect(book.cancel("nothing") == .unchanged)
    }

    @Test func expiryRunsWhileWaitingAndAskingAgainReplaces() {
        var book = Book()
        _ = book.start(entry("promo", 10, expires: 20), at: 0)
        _ = book.start(entry("fire", 100, expires: 30), at: 5)
        #expect(book.nextExpiry == 20)
        #expect(book.expire(at: 20) == .unchanged, "the waiting one expired unseen")
        #expect(book.entries.map(\.id) == ["fire"])
        // Asked again: its new expiry, shown afresh.
        guard case .show(let renewed) = book.start(entry("fire", 100, expires: 90), at: 25) else { Issue.record("renewed"); return }
        #expect(renewed.expires == 90)
        #expect(book.expire(at: 30) == .unchanged)
        #expect(book.expire(at: 90) == .resumePlaylist)
        #expect(book.start(entry("old", 1, expires: 10), at: 95) == .unchanged, "already expired: not held")
        #expect(book.entries.isEmpty)
    }

    @Test func aFloodKeepsTheHighestAndNewest() {
        var book = Book()
        _ = book.start(entry("top", 1000), at: 0)
        for n in 0..<(Book.capacity * 2) { _ = book.start(entry("m\(n)", n % 7), at: Double(n)) }
        #expect(book.entries.count == Book.capacity)
        #expect(book.showing?.id == "top")
        #expect(book.cancelAll() == .resumePlaylist)
    }
}
