import Foundation
import Testing
import KioskTestSupport

/// `kiosk report` through the executable: the table, --csv, bad lines named by number on
/// stderr, rotated files read together, and a missing file.
@Suite struct ReportCommandTests {
    static func write(_ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plays-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let older = [
        #"{"item":0,"path":"/m/a.mp4","title":"Intro","start":"2026-11-23T09:00:00.000+01:00","end":"2026-11-23T09:00:10.000+01:00","seconds":10.000,"outcome":"completed"}"#,
    ]
    static let newer = [
        #"{"item":0,"path":"/m/a.mp4","title":"Intro","start":"2026-11-23T09:00:10.000+01:00","end":"2026-11-23T09:00:14.000+01:00","seconds":4.000,"outcome":"interrupted","reason":"next"}"#,
        #"{"item":1,"path":"/m/b.mp4","title":"b.mp4","start":"2026-11-23T09:00:1"#,
        #"{"item":1,"path":"https://user:***@cdn.example/b.m3u8","title":"Live, news","start":"2026-11-24T09:00:14.000+01:00","end":"2026-11-24T09:01:14.000+01:00","seconds":60.000,"outcome":"completed"}"#,
    ]

    @Test func aTableOfPlaysPerItemAndDay() throws {
        let older = try Self.write(Self.older), newer = try Self.write(Self.newer)
        defer { for path in [older, newer] { try? FileManager.default.removeItem(atPath: path) } }
        let result = try Kiosk.run("report", newer, older)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            day         item  plays  completed  seconds  title or path
            2026-11-23     0      2          1     14.0  Intro
            2026-11-24     1      1          1     60.0  Live, news

            """)
        #expect(result.stderr.contains("\(newer): line 2: not a JSON object (a line cut short by a power loss?); skipped"))
    }

    @Test func csvQuotesWhatNeedsIt() throws {
        let newer = try Self.write(Self.newer)
        defer { try? FileManager.default.removeItem(atPath: newer) }
        let result = try Kiosk.run("report", "--csv", newer)
        #expect(result.status == 0)
        #expect(result.stdout == "day,item,path,title,plays,completed,seconds,playlist,played_as,by\r\n"
                + "2026-11-23,0,/m/a.mp4,Intro,1,0,4.000,,loop,\r\n"
                + "2026-11-24,1,https://user:***@cdn.example/b.m3u8,\"Live, news\",1,1,60.000,,loop,\r\n")
    }

    @Test func aMissingFileExitsWithOne() throws {
        let result = try Kiosk.run("report", "/nonexistent/plays.jsonl")
        #expect(result.status == 1)
        #expect(result.stderr.contains("kiosk report: cannot read /nonexistent/plays.jsonl"))
        #expect(try Kiosk.run("report").status == 2)
    }
}
