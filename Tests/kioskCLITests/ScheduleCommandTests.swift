import Foundation
import Testing
import KioskTestSupport

/// `kiosk schedule` and `kiosk check`'s schedule warnings, through the executable: exit codes
/// and where the output goes (the formats are tested in KioskCoreTests' ScheduleDryRunTests).
@Suite struct ScheduleCommandTests {
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/schedule.conf").path

    static func writeConfig(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-schedule-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theExampleAcrossTheAutumnChange() throws {
        let result = try Kiosk.run("schedule", "--config", Self.example, "--at", "2026-10-22T12:00:00+02:00", "--for", "7d")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("at 2026-10-22 12:00:00 +02:00 thursday: playlist lunch, entry 'lunch', display on"))
        #expect(result.stdout.contains("2026-10-25 09:00 +01:00 sun  playlist default, entry default, display on"))
        let json = try Kiosk.run("schedule", "--config", Self.example, "--at", "2026-10-22T12:00:00+02:00", "--for", "7d", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["timezone"] as? String == "Europe/Berlin")
        #expect((object?["state"] as? [String: Any])?["playlist"] as? String == "lunch")
        let offsets = (object?["changes"] as? [[String: Any]])?.compactMap { $0["utc_offset"] as? String } ?? []
        #expect(offsets.first == "+02:00" && offsets.last == "+01:00")
    }

    /// The README shows this command's output across the DST change (4 days from a Thursday): it must be what this build prints.
    @Test func theReadmeShowsWhatThisBuildPrints() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: Self.example).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
        let command = "$ kiosk schedule --for 4d --at 2026-10-22T12:00:00+02:00 --config examples/schedule.conf\n"
        let start = try #require(readme.range(of: command))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let shown = String(readme[start.upperBound..<end.lowerBound])
        let result = try Kiosk.run("schedule", "--for", "4d", "--at", "2026-10-22T12:00:00+02:00", "--config", Self.example)
        #expect(result.status == 0)
        #expect(result.stdout == shown)
    }

    @Test func badInputExitsWithTwo() throws {
        let badAt = try Kiosk.run("schedule", "--config", Self.example, "--at", "next tuesday")
        #expect(badAt.status == 2)
        #expect(badAt.stderr.contains("--at 'next tuesday' is not an ISO 8601 time"))
        let badSpan = try Kiosk.run("schedule", "--config", Self.example, "--for", "a week")
        #expect(badSpan.status == 2)
        #expect(badSpan.stderr.contains("--for 'a week' is not a span"))
        let broken = try Self.writeConfig("items: [a.mp4]\nschedule:\n  entries:\n    - {playlist: lunch}\n")
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let result = try Kiosk.run("schedule", "--config", broken)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(broken):4:18: 'playlist' in schedule entry 1 is 'lunch', which no playlist defines"))
        #expect(result.stdout.isEmpty)
    }

    @Test func checkWarnsAboutAnAmbiguousOverlapAndStillPasses() throws {
        let path = try Self.writeConfig("""
            items: [a.mp4]
            playlists: {lunch: [b.mp4]}
            schedule:
              entries:
                - {name: lunch, playlist: lunch, from: "11:00", to: "14:00"}
                - {name: all day, playlist: default}
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Kiosk.run("check", path)
        #expect(result.status == 0)
        #expect(result.stderr.contains("\(path):6:7: warning: schedule entries 'lunch' (\(path):5:7) and 'all day' (\(path):6:7)"))
        #expect(result.stderr.contains("the entry listed first wins"))
        #expect(result.stdout.contains("OK"))
    }
}
