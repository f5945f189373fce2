import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A ticker's motion on the refresh grid, its kiosk.conf forms, and the feed reader's titles
/// from RSS, Atom and hostile bodies.
@Suite("Ticker: motion, config, feed titles")
struct TickerTests {
    @Test func aWholeNumberOfPixelsEveryRefresh() {
        let motion = TickerMotion(speed: 120, refreshInterval: 1.0 / 60)
        #expect(motion.step == 2 && abs(motion.effectiveSpeed - 120) < 1e-9)
        #expect(TickerMotion(speed: 100, refreshInterval: 1.0 / 60).step == 2)   // 1.67 rounds to 2
        #expect(TickerMotion(speed: 10, refreshInterval: 1.0 / 60).step == 1)    // never 0
        // Flips a little off the grid still count whole refreshes; a skipped refresh is two steps.
        #expect(motion.travelled(at: 10 + 3.0 / 60 + 0.002, since: 10) == 6)
        #expect(motion.travelled(at: 10 + 5.0 / 60 - 0.003, since: 10) == 10)
        #expect(motion.travelled(at: 9, since: 10) == 0)
    }

    @Test func theLineEntersRightLeavesLeftAndComesAgain() {
        #expect(TickerMotion.lineX(travelled: 0, lineWidth: 300, stripWidth: 640) == 640)
        #expect(TickerMotion.lineX(travelled: 640, lineWidth: 300, stripWidth: 640) == 0)
        #expect(TickerMotion.lineX(travelled: 939, lineWidth: 300, stripWidth: 640) == -299)
        #expect(TickerMotion.lineX(travelled: 940, lineWidth: 300, stripWidth: 640) == 640)
        #expect(TickerMotion.lineX(travelled: 5, lineWidth: 0, stripWidth: 0) == 0)
    }

    @Test func theStripSpansTheWidthAtItsEdge() {
        let screen = PixelSize(width: 1280, height: 720)
        #expect(LayerPlacement.tickerStrip(height: 60, at: .bottom, margin: 10, on: screen) == PixelRect(x: 0, y: 650, width: 1280, height: 60))
        #expect(LayerPlacement.tickerStrip(height: 60, at: .top, margin: 0, on: screen) == PixelRect(x: 0, y: 0, width: 1280, height: 60))
        #expect(LayerPlacement.tickerStrip(height: 60, at: .center, margin: 10, on: screen) == PixelRect(x: 0, y: 330, width: 1280, height: 60))
        // Turned 90°: the viewer's bottom strip is the buffer's left column band.
        let strip = PixelRect(x: 0, y: 650, width: 1280, height: 60)
        #expect(LayerPlacement.bufferRect(strip, viewer: screen, rotation: .clockwise90) == PixelRect(x: 10, y: 0, width: 60, height: 1280))
        #expect(LayerPlacement.bufferRect(strip, viewer: screen, rotation: .none) == strip)
    }

    private func parse(_ yaml: String) throws(ConfigError) -> KioskConfig {
        try ConfigLoader.parse(text: "items: [a.mp4]\n" + yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                               fileSystem: FakeFileSystem(files: ["/srv/kiosk/news.txt"]))
    }

    @Test func itsForms() throws {
        let layers = try parse("""
            layers:
              - ticker: {text: "Hello", speed: 90}
              - ticker: {file: news.txt, position: top, separator: " | "}
              - ticker: {feed: "https://example.com/news.rss", refresh: 60}

            """).layers
        #expect(layers[0].content == .ticker(.text("Hello"), speed: 90, separator: "   •   ") && layers[0].position == .bottom)
        #expect(layers[1].content == .ticker(.file(path: "/srv/kiosk/news.txt"), speed: 120, separator: " | "))
        #expect(layers[1].position == .top && layers[1].moves && !LayerConfig(name: "c", content: .text("x")).moves)
        #expect(layers[2].content == .ticker(.feed(url: "https://example.com/news.rss", refresh: MediaTime(value: 60, timescale: 1)),
                                             speed: 120, separator: "   •   "))
    }

    static let badValues: [ConfigErrorCase] = [
        ConfigErrorCase(afterItems: "layers: [{ticker: {text: a, position: top-left}}]\n", line: 2, column: 39,
                       fragment: "a ticker runs across the screen: expected one of: bottom, top, center"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {feed: ftp://x/y}}]\n", line: 2, column: 26,
                       fragment: "expected an http:// or https:// URL"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {text: a, refresh: 60}}]\n", line: 2, column: 29,
                       fragment: "has 'refresh' but no 'feed'"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {feed: \"http://x/\", refresh: 2}}]\n", line: 2, column: 48,
                       fragment: "expected 10 s or more"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {text: a, file: news.txt}}]\n", line: 2, column: 11,
                       fragment: "has more than one of 'text', 'file', 'feed'"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {speed: 50}}]\n", line: 2, column: 11,
                       fragment: "has no 'text', 'file' or 'feed'"),
        ConfigErrorCase(afterItems: "layers: [{ticker: {text: a, speed: 0}}]\n", line: 2, column: 36,
                       fragment: "'speed' in layer 1 (ticker)"),
    ].reading(["/srv/kiosk/news.txt"])


    // MARK: Feeds

    private func titles(_ text: String) throws -> [String] { try FeedTitles.parse(Array(text.utf8)) }

    @Test func rssItemsNotTheChannelsTitle() throws {
        let rss = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
            <item><title>First &amp; foremost</title><link>x</link></item>
            <item><title><![CDATA[Second <b>bold</b> & more]]></title></item>
            <item><title>  Third
               line  </title></item><item><description>no title</description></item>
            </channel></rss>
            """
        #expect(try titles(rss) == ["First & foremost", "Second bold & more", "Third line"])
    }

    @Test func atomEntriesWithHTMLTitlesAndNumericReferences() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Site</title>
            <entry><title type="html">&lt;em&gt;Caf&#233;&lt;/em&gt; opens</title></entry>
            <entry><atom:title>Pi is &#x3C0;</atom:title></entry>
            <entry><title/></entry></feed>
            """
        #expect(try titles(atom) == ["Café opens", "Pi is π"])
    }

    @Test func anEntityBombIsNotExpanded() throws {
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><rss><channel><item><title>&c;&c;</title></item></channel></rss>
            """
        #expect(try titles(bomb) == ["&c;&c;"])
    }

    @Test func garbageAndHTMLAreNoFeed() {
        #expect(throws: FeedTitles.Problem.notAFeed) { try titles("<html><body><h1>502 Bad Gateway</h1></body></html>") }
        #expect(throws: FeedTitles.Problem.notAFeed) { try FeedTitles.parse((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }) }
        #expect(throws: FeedTitles.Problem.notAFeed) { try titles("") }
    }

    @Test func aHugeFeedIsReadOnlyToItsLimits() throws {
        let item = "<item><title>" + String(repeating: "x", count: 1000) + "</title></item>"
        let body = "<rss><channel>" + String(repeating: item, count: 5000) + "</channel></rss>"   // 5 MB
        let read = try titles(body)
        #expect(read.count == FeedTitles.maxTitles)
        #expect(read.allSatisfy { $0.count == FeedTitles.maxTitleLength })
        // Cut mid-tag, mid-CDATA, mid-title: no crash, what came before is kept.
        for cut in ["<rss><item><title>Half", "<rss><item><title><![CDATA[Half", "<rss><item><title>A</title></item><item><ti"] {
            _ = try titles(cut)
        }
        #expect(try titles("<rss><item><title>A</title></item><item><ti") == ["A"])
    }
}
