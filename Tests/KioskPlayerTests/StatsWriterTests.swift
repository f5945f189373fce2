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

    /// The times are written as "%.6f" writes them (Foundation's formatter is no longer used,
    /// for its cost at every flip): digit for digit from 8192 s on (the clocks' values; the
    /// fraction's product is exact there), halves to even; below, a value within a rounding error
    /// of a half microsecond may end one microsecond apart.
    @Test func timesAreWrittenToTheMicrosecondAsPrintfWrites() {
        var values: [Double] = [0, -0.0, 0.04, 1.0 / 3, -1.5, 0.0000004, 0.0000006, 12.9999996, 16792.929489, 1796289675.855743,
                                -0.0000004, 86399.999999, 4_000_000_000.25, 0.0078125, 0.0234375, 1796289675.0078125,
                                16792.0000005, 1796289675.9999995]
        /// A "%.6f" text in microseconds.
        func micros(_ text: String) -> Int64 {
            let parts = text.split(separator: ".")
            let whole = Int64(parts[0].trimmingPrefix("-"))!, fraction = Int64(parts[1])!
            return (text.hasPrefix("-") ? -1 : 1) * (whole * 1_000_000 + fraction)
        }
        var generator = SystemRandomNumberGenerator()
        values += (0..<2000).map { _ in Double.random(in: -100_000...2_000_000_000, using: &generator) }
        values += (0..<2000).map { _ in Double.random(in: 0...100, using: &generator) }
        for value in values {
            var line = ""
            StatsWriter.appendSixDecimals(value, to: &line)
            let printf = String(format: "%.6f", value)
            if printf == "-0.000000" {
                #expect(line == "0.000000", "no sign on a zero")
            } else if abs(value) >= 8192 {
                #expect(line == printf, "\(value)")
            } else {
                #expect(line.split(separator: ".").last?.count == 6 && abs(micros(line) - micros(printf)) <= 1,
                        "\(value): \(line) against \(printf)")
            }
        }
        var line = ""
        StatsWriter.appendSixDecimals(.nan, to: &line)
        StatsWriter.appendSixDecimals(.infinity, to: &line)
        #expect(line == "00", "not finite: 0, so the line stays JSON")
    }
}
