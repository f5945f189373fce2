import Foundation
@testable import KioskBasics

/// Damage of the kind a half-copied stick, a CMS's bad export, a broken proxy or a hostile
/// sender gives a file kiosk reads: bytes flipped or cut, markup and escapes inserted,
/// encodings mixed, lines and nesting blown up. The fuzz tests (PlaylistFileFuzzTests,
/// FeedFuzzTests) hand in what their format is made of: `tokens` inserted whole, `chunks`
/// repeated thousands of times.
enum ByteDamage: CaseIterable {
    case flipByte, insertBytes, insertToken, deleteRange, duplicateRange, truncate, asUTF16, repeatChunk, longLine

    /// What any text format meets: markup, escapes, breaks, odd scalars, names of the box.
    static let commonTokens = ["<", ">", "&amp;", "&#0;", "&#xFFFFFFFF;", "&lol;", "<!--", "-->", "<![CDATA[", "]]>",
                               "<!DOCTYPE x [<!ENTITY lol \"lol\">]>", "<?x ?>", "%", "%G0", "%00", "\n", "\r", "\r\n", "=",
                               "../../../../etc/shadow", "/dev/sda", "\u{FEFF}", "\u{0}", "\u{FFFD}", "\u{202E}", "é",
                               "http://169.254.169.254/latest"]

    /// One to four kinds of damage, chosen by `random`; what was done, for a failure's message.
    static func damage(_ bytes: inout [UInt8], tokens: [String], chunks: [String], using random: inout SeededGenerator) -> [ByteDamage] {
        (0..<Int.random(in: 1...4, using: &random)).map { _ in
            let damage = allCases.randomElement(using: &random)!
            damage.apply(to: &bytes, tokens: commonTokens + tokens, chunks: chunks, using: &random)
            return damage
        }
    }

    func apply(to bytes: inout [UInt8], tokens: [String], chunks: [String], using random: inout SeededGenerator) {
        let at = Int.random(in: 0...bytes.count, using: &random)
        let span = min(bytes.count - at, Int.random(in: 1...64, using: &random))
        switch self {
        case .flipByte:
            if at < bytes.count { bytes[at] = UInt8.random(in: 0...255, using: &random) }
        case .insertBytes:
            bytes.insert(contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: at)
        case .insertToken:
            bytes.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: at)
        case .deleteRange:
            bytes.removeSubrange(at..<(at + span))
        case .duplicateRange:
            bytes.insert(contentsOf: bytes[at..<(at + span)], at: at)
        case .truncate:
            bytes.removeSubrange(at...)
        case .asUTF16:
            // Notepad's "Unicode": a BOM and UTF-16LE, sometimes an odd byte left at the end.
            let text = String(decoding: bytes, as: UTF8.self)
            bytes = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            if Bool.random(using: &random) { bytes.append(0x41) }
        case .repeatChunk:
            // Thousands of entries, nested tags or lines: the bounds, not the memory, end it.
            let chunk = chunks.randomElement(using: &random) ?? "<a>"
            bytes.insert(contentsOf: Array(String(repeating: chunk, count: Int.random(in: 100...6_000, using: &random)).utf8), at: at)
        case .longLine:
            bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "a"), count: Int.random(in: 1_000...300_000, using: &random)), at: at)
        }
    }
}
