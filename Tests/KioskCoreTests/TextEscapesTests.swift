import Foundation
import Testing
@testable import KioskBasics
@testable import KioskPolicy

@Suite("Text from outside, as messages and record files write it")
struct TextEscapesTests {
    @Test func aMessageQuotesNoLineBreakAndAtMostItsLimit() {
        #expect(quotedForMessage("a\tb\nc\u{7F}é") == "a\\u{9}b\\u{a}c\\u{7f}é")
        let long = String(repeating: "x", count: 500)
        #expect(quotedForMessage(long) == String(repeating: "x", count: 160) + "...")
        #expect(quotedForMessage(long, limit: 10) == "xxxxxxxxxx...")
        #expect(quotedForMessage(String(repeating: "y", count: 160)) == String(repeating: "y", count: 160))
    }

    @Test func percentEscapesWriteEachByteOfAPickedScalar() {
        #expect("a b,é".percentEscaped { $0 == " " || $0 == "é" } == "a%20b,%C3%A9")
        #expect("\u{1}".percentEscaped { _ in true } == "%01")
        #expect("nothing".percentEscaped { _ in false } == "nothing")
    }

    @Test func aRecordLineFieldReadsBackAsItWasWritten() {
        for text in ["plain", "50% off\tnow\r\nthen", "%25 is not %", "Straße 🚪\n", ""] {
            let field = text.escapedForRecordLine
            #expect(!field.contains("\t") && !field.contains("\n") && !field.contains("\r"))
            #expect(field.removingPercentEncoding == text)
        }
        #expect("a%\tb".escapedForRecordLine == "a%25%09b")
    }

    @Test func aCapKeyPartKeepsPercentAndEscapesCommasAndSpaces() {
        #expect(CapAlert.keyPart("Fire Dept, Berlin") == "Fire%20Dept%2C%20Berlin")
        #expect(CapAlert.keyPart("a%20b") == "a%20b")
        #expect(CapAlert.keyPart("x\ty\u{A0}z") == "x%09y%C2%A0z")
    }
}
