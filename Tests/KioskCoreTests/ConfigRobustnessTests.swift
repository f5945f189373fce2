import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A small deterministic generator (SplitMix64), so a failing mutation can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Config robustness")
struct ConfigRobustnessTests {
    static let example: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("kiosk.conf"), encoding: .utf8)) ?? "items: [a.mp4]\n"
    }()

    /// Pieces that tend to break YAML or the schema: the parser must answer with diagnostics
    /// that point inside the file, never crash or hang.
    static let fragments = ["\t", ":", "- ", "[", "]", "{", "}", "\"", "'", "&a ", "*a", "#", "\n", "  ", "---\n",
                            "\u{0}", "\u{1}", "é", "🎬", "loop: loop\n", "? ", "|\n", "!!int ", "<<: ", ",", "@", "`", "%"]

    @Test(arguments: 0..<8)
    func mutatedExamplesNeverCrash(_ seed: Int) {
        var random = SeededGenerator(state: UInt64(seed) &* 7919)
        let lineCount = Self.example.split(separator: "\n", omittingEmptySubsequences: false).count
        for _ in 0..<250 {
            var scalars = Array(Self.example.unicodeScalars)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0...scalars.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: scalars.insert(contentsOf: Self.fragments.randomElement(using: &random)!.unicodeScalars, at: position)
                case 1: scalars.removeSubrange(position..<min(scalars.count, position + Int.random(in: 1...12, using: &random)))
                default:
                    let source = Int.random(in: 0..<scalars.count, using: &random)
                    scalars.insert(contentsOf: scalars[source..<min(scalars.count, source + 20)], at: position)
                }
            }
            let text = String(String.UnicodeScalarView(scalars))
            for diagnostic in parseDiagnostics(text) {
                #expect(diagnostic.line >= 1 && diagnostic.line <= lineCount + 100, "\(diagnostic)")
                #expect(diagnostic.column >= 1, "\(diagnostic)")
                #expect(!diagnostic.message.isEmpty)
            }
        }
    }

    @Test func hugeAndOddNumbersAreDiagnosed() {
        let yaml = """
            audio:
              volume: 99999999999999999999999
            playback:
              rate: .nan
              image_duration: 1e400
            input:
              seek_step: 0x10
            items:
              - {path: a.mp4, loop: -0, start: 99999999999999999999}
            """
        let positions = parseDiagnostics(yaml).map { "\($0.line):\($0.column)" }
        // YAML reads 0x10 as 16, but a time in hex is surely a mistake: seconds are decimal.
        #expect(positions == ["2:11", "4:9", "5:19", "7:14", "9:25", "9:36"])
    }

    @Test func directoryGivenAsConfigFile() {
        #expect(throws: ConfigError(diagnostics: [ConfigDiagnostic(file: "/tmp", line: 0, column: 0,
                                                                   message: "this is a directory; expected a readable kiosk.conf")])) {
            try ConfigLoader.load(path: "/tmp")
        }
    }
}
