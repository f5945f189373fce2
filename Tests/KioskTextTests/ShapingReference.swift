import Foundation
@testable import KioskText

/// The reference tools, run at test time: `hb-shape` (libharfbuzz-bin) and `fribidi`
/// (libfribidi-bin), both in deploy/packages.txt.
enum ShapingReference {
    struct Glyph: Decodable, Equatable, CustomStringConvertible {
        let g: UInt32, cl: Int, ax: Int32, dx: Int32, dy: Int32
        var description: String { "\(g)=\(cl)@\(dx),\(dy)+\(ax)" }
    }

    /// `hb-shape` with FreeType's functions at `pixelSize` px, hinted like kiosk: a font size
    /// of pixelSize * 64 puts positions in 1/64 px (26.6), as kiosk's are.
    /// `functions` "ot": HarfBuzz's own metrics, as kiosk uses them for colour bitmap fonts.
    static func hbShape(font: String, text: String, pixelSize: Int, functions: String = "ft") throws -> [Glyph] {
        let output = try run("/usr/bin/hb-shape", ["--font-funcs=\(functions)", "--ft-load-flags=0", "--font-size=\(pixelSize * 64)",
                                                   "--no-glyph-names", "--output-format=json", font, text])
        return try JSONDecoder().decode([Glyph].self, from: Data(output.utf8))
    }

    /// `fribidi --vtol`: for each visual position (left to right), the logical index.
    static func fribidiVisualToLogical(_ text: String) throws -> [Int] {
        let output = try run("/usr/bin/fribidi", ["--nopad", "--nobreak", "--vtol", "--novisual"], input: text + "\n")
        return output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    }

    /// kiosk's glyphs in the reference's form.
    static func glyphs(_ line: ShapedLine) -> [Glyph] {
        line.glyphs.map { Glyph(g: $0.glyphID, cl: $0.cluster, ax: $0.xAdvance, dx: $0.xOffset, dy: $0.yOffset) }
    }

    /// The clusters left to right, each once: what a visual order of characters becomes
    /// once marks and ligatures are merged into their cluster (`clusters`: the starts).
    static func visualClusters(_ logicalIndices: [Int], clusters: Set<Int>) -> [Int] {
        let starts = clusters.sorted()
        var result: [Int] = []
        for index in logicalIndices {
            guard let start = starts.last(where: { $0 <= index }) else { continue }
            if result.last != start { result.append(start) }
        }
        return result
    }

    static func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: tool, code: Int(process.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments) failed"])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
