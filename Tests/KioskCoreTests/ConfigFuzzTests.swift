import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Line-level and character-level damage of the kind hands and tools do to a kiosk.conf.
private enum ConfigMutation: CaseIterable {
    case deleteLine, duplicateLine, swapLines, flipCharacter, reindent, insertTab, insertRandomScalars,
         hugeNumber, deepNesting, billionLaughs, longLine, truncate

    static let oddScalars: [Unicode.Scalar] = ["\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{85}", "\u{A0}", "\u{FEFF}",
                                               "\u{2028}", "\u{FFFD}", "\u{E000}", "\u{10FFFF}", "\r", "\t", ":",
                                               "-", "&", "*", "!", "|", ">", "%", "@", "`", "{", "}", "[", "]", "#",
                                               "'", "\"", "?", ",", "é", "🎬"]
    static let hugeNumbers = ["1e400", "-1e400", "99999999999999999999999999", "-9223372036854775809",
                              "0x7FFFFFFFFFFFFFFFFF", ".inf", "-.inf", ".nan", "1_000_000_000_000", "0o777777777777777777777"]

    func apply(to lines: inout [String], using random: inout SeededGenerator) {
        let index = Int.random(in: 0..<max(1, lines.count), using: &random)
        if lines.isEmpty { lines = [""] }
        switch self {
        case .deleteLine: lines.remove(at: index)
        case .duplicateLine: lines.insert(lines[index], at: index)
        case .swapLines: lines.swapAt(index, Int.random(in: 0..<lines.count, using: &random))
        case .flipCharacter, .insertRandomScalars:
            var scalars = Array(lines[index].unicodeScalars)
            let position = Int.random(in: 0...scalars.count, using: &random)
            let count = self == .flipCharacter ? 1 : Int.random(in: 1...6, using: &random)
            let inserted = (0..<count).map { _ in randomScalar(using: &random) }
            if self == .flipCharacter, position < scalars.count { scalars[position] = inserted[0] } else {
                scalars.insert(contentsOf: inserted, at: position)
            }
            lines[index] = String(String.UnicodeScalarView(scalars))
        case .reindent:
            let line = lines[index], shift = Int.random(in: -3...3, using: &random)
            let leading = line.prefix { $0 == " " }.count
            lines[index] = shift >= 0 ? String(repeating: " ", count: shift) + line : String(line.dropFirst(min(-shift, leading)))
        case .insertTab: lines[index] = "\t" + lines[index]
        case .hugeNumber:
            let number = Self.hugeNumbers.randomElement(using: &random)!
            if let colon = lines[index].firstIndex(of: ":") {
                lines[index] = lines[index][...colon] + " " + number
            } else {
                lines.insert("  - {path: a.mp4, volume: \(number), start: \(number)}", at: index)
            }
        case .deepNesting:
            let depth = [50, 999, 1001, 5000].randomElement(using: &random)!
            lines.insert("items: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth), at: index)
        case .billionLaughs:
            // Ten levels of ten aliases: 10^10 nodes if anything expanded them.
            var block = ["laughs0: &l0 [\"lol.mp4\"]"]
            for level in 1...9 {
                block.append("laughs\(level): &l\(level) [" + Array(repeating: "*l\(level - 1)", count: 10).joined(separator: ", ") + "]")
            }
            block.append(["items: *l9", "items: [*l9, *l8]", "playback: {gravity: *l9}", "items:\n  - {path: *l9}"]
                .randomElement(using: &random)!)
            lines.insert(contentsOf: block, at: index)
        case .longLine:
            let length = [4_096, 70_000, 300_000].randomElement(using: &random)!
            lines.insert("  - \"" + String(repeating: "x", count: length) + ".mp4\"", at: index)
        case .truncate:
            lines.removeSubrange(index...)
        }
    }

    private func randomScalar(using random: inout SeededGenerator) -> Unicode.Scalar {
        if Bool.random(using: &random) { return Self.oddScalars.randomElement(using: &random)! }
        while true {
            if let scalar = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &random)) { return scalar }
        }
    }
}

@Suite("Config fuzzing")
struct ConfigFuzzTests {
    /// The repository's annotated kiosk.conf and a few small valid files.
    static let seeds: [String] = [
        ConfigRobustnessTests.example,
        "items: [a.mp4, b.mkv]\n",
        "display:\n  output: headless\n  rotation: 90\naudio:\n  volume: 80\nplayback:\n  loop: playlist\n  gravity: fill\nitems:\n  - path: a.mp4\n    start: 1.5\n    end: 3\n  - b.png\n",
        "input:\n  seek_step: 10\n  gestures: {tap: true, swipe: false}\n  keys:\n    next: [KEY_N]\nitems:\n  - {path: a.mp4, title: \"Lobby\", volume: 50}\n",
    ]

    static let casesPerSeed = 500

    /// 4,000 mutated files through the parser: it always answers (no crash, no hang), and every
    /// diagnostic points inside the text with a message.
    @Test(arguments: 0..<8)
    func mutatedConfigsAreDiagnosedInsideTheText(_ seed: Int) {
        var random = SeededGenerator(state: 0xC0FFEE &+ UInt64(seed))
        var failures: [String] = []
        var diagnosed = 0
        for number in 0..<Self.casesPerSeed {
            var lines = Self.seeds[(seed + number) % Self.seeds.count].components(separatedBy: "\n")
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                ConfigMutation.allCases.randomElement(using: &random)!.apply(to: &lines, using: &random)
            }
            let text = lines.joined(separator: "\n")
            let textLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            let diagnostics = parseDiagnostics(text)
            if !diagnostics.isEmpty { diagnosed += 1 }
            for diagnostic in diagnostics {
                let inside = diagnostic.line >= 1 && diagnostic.line <= textLines.count + 1 && diagnostic.column >= 1
                    && (diagnostic.line > textLines.count
                        || diagnostic.column <= textLines[diagnostic.line - 1].count + 1)
                if !inside || diagnostic.message.isEmpty || diagnostic.file != "kiosk.conf" {
                    failures.append("seed \(seed) case \(number): \(diagnostic)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5).joined(separator: "\n"))")
        // The mutations are meant to break files: most must be caught.
        #expect(diagnosed > Self.casesPerSeed / 2, "only \(diagnosed) of \(Self.casesPerSeed) mutated files had errors")
    }

    /// YAML breaks lines at a lone CR, NEL and U+2028/9, editors do not: found by the fuzzing
    /// above (positions after one were off by a line), now reported where the editor shows it.
    @Test(arguments: [("\r", "CR"), ("\u{85}", "U+0085 NEL"), ("\u{2028}", "U+2028"), ("\u{2029}", "U+2029")])
    func strayLineBreaksArePlacedWhereEditorsShowThem(_ character: String, _ name: String) {
        let diagnostics = parseDiagnostics("audio:\n  volume: 5\(character)0\nitems: [a.mp4]\n")
        #expect(diagnostics.map { "\($0.line):\($0.column)" } == ["2:12"])
        #expect(diagnostics.first?.message.hasPrefix("a line break character (\(name)) inside a line") == true)
        #expect(parseDiagnostics("audio:\r\n  volume: 50\r\nitems: [a.mp4]\r\n").isEmpty)
    }

    /// Bytes that are not UTF-8, anywhere in the file: one diagnostic at that byte's line and
    /// column (editors can jump there), through the file loader.
    @Test func invalidUTF8IsPlacedAtItsByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-fuzz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededGenerator(state: 7)
        let example = Array(ConfigRobustnessTests.example.utf8)
        for number in 0..<200 {
            var bytes = example
            let offset = Int.random(in: 0...bytes.count, using: &random)
            let bad: [UInt8] = [[0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0x80]]
                .randomElement(using: &random)!
            bytes.insert(contentsOf: bad, at: offset)
            let path = directory + "/\(number).conf"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try ConfigLoader.load(path: path, fileSystem: FakeFileSystem(files: []))
                Issue.record("case \(number): bytes \(bad) at \(offset) were accepted")
            } catch {
                // Where the damage went in: the line is the count of newlines before it (a lone
                // continuation byte right after a valid prefix may glue onto it, so the
                // diagnostic is at or just before the insertion).
                let line = example[..<offset].filter { $0 == 0x0A }.count + 1
                let diagnostic = try #require(error.diagnostics.first)
                #expect(error.diagnostics.count == 1)
                #expect(diagnostic.line == line && diagnostic.column >= 1, "case \(number): \(diagnostic) for offset \(offset)")
                #expect(diagnostic.message.hasSuffix("is not UTF-8 text; expected a YAML file saved as UTF-8"))
            }
        }
    }
}
