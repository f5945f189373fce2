import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// A playlist item written `text: "words"` (#35): a card kiosk draws, as an override's `text`
/// is; its style keys checked by the same rules; the web page's file carries it both ways.

private func parse(_ yaml: String) throws -> KioskConfig {
    try ConfigLoader.parse(text: yaml, fileName: "kiosk.conf", baseDirectory: "/srv/kiosk",
                           fileSystem: FakeFileSystem(files: ["/srv/kiosk/a.mp4"]))
}

let textItemConfigErrorTable: [ConfigErrorCase] = [
    ConfigErrorCase(name: "an item of text and path", yaml: "items:\n  - {text: Lunch, path: a.mp4}\n", line: 2, column: 19,
                    fragment: "item 1 has both 'text' (at 2:6) and 'path'; expected one of them"),
    ConfigErrorCase(name: "an item's card of spaces", yaml: "items:\n  - a.mp4\n  - {text: \" \"}\n", line: 3, column: 12,
                    fragment: "'text' in item 2 has no words; expected the words the card shows"),
    ConfigErrorCase(name: "an item's card colour", yaml: "items:\n  - {text: Lunch, color: white}\n", line: 2, column: 26,
                    fragment: "'color' in item 1 is the string 'white'; expected a colour like #ffffff"),
    ConfigErrorCase(name: "a card in folders", yaml: "items:\n  - {text: Lunch, recursive: true}\n", line: 2, column: 30,
                    fragment: "'recursive' in item 1 applies to a directory; a text card has no folders"),
    ConfigErrorCase(name: "an item's style without a card", yaml: "items:\n  - {path: a.mp4, size: 10%}\n", line: 2, column: 19,
                    fragment: "'size' in item 1 styles a text card; expected it with text: \"...\", or leave it out"),
]

@Suite("Text cards in playlists")
struct TextItemConfigTests {
    @Test func aTextItemIsACardWithItsStyleAndItemKeys() throws {
        let config = try parse("items:\n  - a.mp4\n  - {text: \"Lunch\\nat noon\", color: \"#ffcc00\", background: \"#10203080\", "
                               + "size: 10%, duration: 8, title: Menu}\n")
        #expect(config.items.count == 2)
        guard case .card(let card) = config.items[1].source else {
            Issue.record("item 2 is \(config.items[1].source), not a card")
            return
        }
        #expect(card.text == "Lunch\nat noon")
        #expect(card.color == LayerColor(rgb: 0xFFCC00))
        #expect(card.background == LayerColor(rgb: 0x102030, alpha: 0x80))
        #expect(card.size == .percent(10))
        #expect(config.items[1].duration == MediaTime(seconds: 8))
        #expect(config.items[1].title == "Menu")
        #expect(config.items[1].location.line == 3)
    }

    @Test func theStylesWrittenFormIsReadBack() {
        for color in [LayerColor(rgb: 0), LayerColor(rgb: 0xFFFFFF), LayerColor(rgb: 0x0A0B0C, alpha: 0x05), LayerColor(rgb: 0x123456, alpha: 0)] {
            #expect(LayerColor(text: color.written) == color, "\(color.written)")
        }
        #expect(LayerColor(rgb: 0x0A0B0C, alpha: 0x05).written == "#0a0b0c05")
        for length in [LayerLength.pixels(48), .pixels(0), .percent(10), .percent(12.5)] {
            #expect(LayerLength(text: length.written) == length, "\(length.written)")
        }
        #expect(LayerLength.percent(10).written == "10%")
    }

    @Test func thePageCarriesACardBothWays() throws {
        // As the page sends it: words with a line break and a quote, one style key.
        let json = ##"{"items": [{"path": "a.mp4"}, {"text": "Lunch \"today\"\nat noon", "background": "#800000", "duration": 6}]}"##
        guard let value = ControlValue.parse(json), case .success(let entries) = PagePlaylist.entries(from: value) else {
            Issue.record("the page's card entry was refused")
            return
        }
        #expect(entries[1].text == "Lunch \"today\"\nat noon")
        #expect(entries[1].path.isEmpty)
        #expect(entries[1].style == .init(background: "#800000"))
        // The file written is read back as the same entries, and as kiosk.conf's card item.
        let text = PagePlaylist.text(entries)
        #expect(PagePlaylist.contents(ofText: text)?.items == entries)
        let merged = try PagePlaylist.merged(into: try parse("items: [a.mp4]\n"), fileName: "/var/lib/kiosk/page.yaml", text: text,
                                             baseDirectory: "/srv/kiosk", fileSystem: FakeFileSystem(files: ["/srv/kiosk/a.mp4"]))
        guard merged.items.count == 2, case .card(let card) = merged.items[1].source else {
            Issue.record("the page file's card did not become a card item: \(merged.items.map(\.source))")
            return
        }
        #expect(card == TextCard(text: "Lunch \"today\"\nat noon", background: LayerColor(rgb: 0x800000)))
        #expect(merged.items[1].duration == MediaTime(seconds: 6))
        // kiosk.conf's own card, as the page starts from it: its words and the style it changed.
        #expect(PagePlaylist.entries(of: merged.items)[1] == entries[1])
        #expect(entries[1].controlValue["text"] == .string("Lunch \"today\"\nat noon"))
        #expect(entries[1].controlValue["path"] == nil)
    }

    @Test func wordsYAMLWouldReadOtherwiseComeBackAsWritten() throws {
        // NEL and U+2028/2029 are line breaks to libyaml (folded into a space in a quoted
        // scalar); C1 controls and U+FFFF make it refuse the file.
        let words = "Exit\u{85}east\u{2028}now\u{2029} \u{7F}\u{9B}\u{FFFF} \"ok\" \\ é 出口"
        var entry = PagePlaylistEntry(path: "")
        entry.text = words
        let text = PagePlaylist.text([entry])
        #expect(PagePlaylist.contents(ofText: text)?.items?.first?.text == words)
        let merged = try PagePlaylist.merged(into: try parse("items: [a.mp4]\n"), fileName: "/var/lib/kiosk/page.yaml", text: text,
                                             baseDirectory: "/srv/kiosk", fileSystem: FakeFileSystem(files: []))
        guard case .card(let card)? = merged.items.first?.source else {
            Issue.record("no card: \(merged.items.map(\.source))")
            return
        }
        #expect(card.text == words)
    }

    @Test func thePageRefusesAnEntryThatIsNeitherOrBoth() {
        func refusal(_ json: String) -> String? {
            guard let value = ControlValue.parse(json) else { return "not JSON" }
            if case .failure(let error) = PagePlaylist.entries(from: value) { return error.description }
            return nil
        }
        #expect(refusal(##"{"items": [{"text": "Hi", "color": "#ffffff", "size": "10%"}]}"##) == nil)
        #expect(refusal(#"{"items": [{"path": "a.mp4", "text": "Hi"}]}"#) == "item 1 has both a path and a card's text; expected one of them")
        #expect(refusal(#"{"items": [{"title": "x"}]}"#) == "item 1 has neither a path nor a card's text; expected one of them")
        #expect(refusal(#"{"items": [{"text": "  "}]}"#)?.contains("item 1: the card's text is empty") == true)
        #expect(refusal(##"{"items": [{"path": "a.mp4", "color": "#ffffff"}]}"##)
                == "item 1: color, background and size style a card; expected them with text")
        #expect(refusal(#"{"items": [{"text": "Hi", "size": "1\n2"}]}"#)?.contains("'size' is empty, over 32") == true)
        let long = String(repeating: "w", count: TextCard.maximumLength + 1)
        #expect(refusal("{\"items\": [{\"text\": \"\(long)\"}]}")?.contains("over \(TextCard.maximumLength) characters") == true)
    }
}
