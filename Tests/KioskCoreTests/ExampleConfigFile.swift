import Foundation

/// The repository's annotated kiosk.conf, which shows optional sections commented out: tests
/// take one in and check that it reads as its comments say.
enum ExampleConfigFile {
    static var text: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("kiosk.conf"), encoding: .utf8)
        }
    }

    /// The commented-out section whose first line is `firstLine` ("# mqtt:"), uncommented: its
    /// lines up to the first one that is not a comment, each without its "# ". Nil when the
    /// file has no such line.
    static func commentedSection(_ firstLine: String) throws -> String? {
        let lines = try text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == firstLine }) else { return nil }
        return lines[start...].prefix { $0.hasPrefix("#") }.map { $0.dropFirst(2) }.joined(separator: "\n")
    }
}
