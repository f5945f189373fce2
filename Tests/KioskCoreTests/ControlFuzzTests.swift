import Foundation
import Testing
@testable import KioskBasics
@testable import KioskPolicy

/// A control line comes from the socket, from MQTT (a broker's, so the network's) and from the
/// web page: whatever it holds, up to the socket's 64 KiB line, it is a request or a refusal
/// that names the command, never a crash.
private let jsonTokens = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "1e400", "-0", "NaN",
                          "\"command\"", "\"request_id\"", "\"seek\"", "\"load\"", "\"override\"", "\"volume\"", "[[[[[[[[", "]]]]]]]]"]
private let jsonChunks = ["[", "{\"a\":", "[1,", "\"x\",", "{\"items\":[{\"path\":\"a.mp4\"}]},"]

@Suite("Control lines: damaged and hostile")
struct ControlFuzzTests {
    static let seeds = [
        #"{"command": ["seek", 30, "relative"], "request_id": 7}"#,
        #"{"command": "pause"}"#,
        #"{"command": ["load", {"items": [{"path": "/media/a.mp4", "volume": 40}]}]}"#,
        #"{"command": ["override", "evacuate"], "request_id": "x"}"#,
        #"{"command": ["set_property", "volume", 50]}"#,
        #"{"command": ["layer", "ticker", "text", "Lunch at noon"]}"#,
    ]

    /// Nesting as deep as a line allows, of arrays and of objects, as the command and beside it.
    @Test func deepNestingIsRefusedNotRecursedInto() {
        let depth = 30_000
        for line in [String(repeating: "[", count: depth) + String(repeating: "]", count: depth),
                     "{\"command\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}",
                     String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth),
                     "{\"command\": [\"display_power\", " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "]}",
                     "{\"command\": [\"seek\", " + String(repeating: "[", count: depth)] {
            #expect(throws: ControlRequestError.self) { try ControlRequestParser.parse(line) }
        }
    }

    /// 1,200 damaged lines (200 of each seed): each parses or is refused with one bounded line.
    @Test func damagedLinesAreRequestsOrRefusals() {
        var random = SeededGenerator(state: 0xC0DE_0035)
        var failures: [String] = []
        for (number, seed) in Self.seeds.enumerated() {
            for run in 0..<200 {
                var bytes = Array(seed.utf8)
                let done = ByteDamage.damage(&bytes, tokens: jsonTokens, chunks: jsonChunks, using: &random)
                let line = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
                do {
                    _ = try ControlRequestParser.parse(line)
                } catch {
                    let message = error.description
                    // A client's word is quoted at 40 characters: a refusal is one line (the longest lists
                    // every command's name), with no break in it for a log to split at.
                    let breaks = message.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }
                    if message.isEmpty || message.count > 1_000 || breaks {
                        failures.append("seed \(number) run \(run) \(done): \(message.prefix(200).debugDescription)")
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) lines: \(failures.prefix(5))")
    }
}
