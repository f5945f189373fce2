import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// The stats file is written on a thread of its own: every line handed over is in the file,
/// whole and in order, once `finish()` returns, and a second `finish()` does nothing.
@Suite struct StatsWriterTests {
    @Test func everyLineIsInTheFileWholeAndInOrderAfterFinish() throws {
        let path = NSTemporaryDirectory() + "kiosk-stats-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        defer { unlink(path) }
        let writer = try StatsWriter(path: path, display: "HDMI-A-1")
        for index in 0..<5000 {
            writer.write(.init(flipTime: Double(index) / 60, item: index % 3, pts: Double(index) / 60, dropped: 0, video: true,
                               generation: 0))
        }
        writer.finish()
        writer.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5000)
        let items = try lines.map { line -> Int in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(record["display"] as? String == "HDMI-A-1")
            return try #require(record["item"] as? Int)
        }
        #expect(items == (0..<5000).map { $0 % 3 })
    }
}
