import Foundation
import KioskCore
import KioskHTTP

/// What the web page reports besides the live status (#36): proof of play (`kiosk report`'s
/// table, and its CSV to download) and the schedule's dry run for the next 7 days (`kiosk
/// schedule --for 7d`), both from the files kiosk.conf names, read when asked.
struct WebReports: Sendable {
    let configPath: String

    /// The proof-of-play file and its rotated ones (`.3` oldest), oldest first, as `kiosk report`
    /// reads them: a day that spans a rotation is one row.
    private struct Refusal: Error {
        let response: HTTPResponse
    }

    private func plays() -> Result<PlayReport, Refusal> {
        let config: KioskConfig
        do {
            config = try ConfigLoader.load(path: configPath)
        } catch {
            return .failure(Refusal(response: WebReply.error(500, "\(error)")))
        }
        guard let path = config.logging.proofOfPlayPath else {
            return .failure(Refusal(response: WebReply.error(409, "kiosk.conf names no logging.proof_of_play file")))
        }
        var text = ""
        for file in ["\(path).3", "\(path).2", "\(path).1", path] {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            text += String(decoding: data, as: UTF8.self)
            if !text.hasSuffix("\n") { text += "\n" }
        }
        return .success(PlayReport(text: text))
    }

    /// `GET /api/v1/plays`: the rows as JSON.
    func playsTable() -> HTTPResponse {
        switch plays() {
        case .failure(let refusal): return refusal.response
        case .success(let report):
            let rows: [ControlValue] = report.rows.map { row in
                let title: ControlValue = row.title.map { .string($0) } ?? .null
                let fields: [(String, ControlValue)] = [
                    ("day", .string(row.day)), ("item", .integer(Int64(row.item))), ("source", .string(row.source)), ("title", title),
                    ("plays", .integer(Int64(row.plays))), ("completed", .integer(Int64(row.completed))), ("seconds", .number(row.seconds)),
                    ("playlist", row.playlist.map { .string($0) } ?? .null), ("played_as", .string(row.playedAs)),
                    ("by", row.by.map { .string($0) } ?? .null),
                ]
                return .object(fields)
            }
            return WebReply.json(.object([("rows", .array(rows)), ("bad_lines", .integer(Int64(report.badLines.count)))]))
        }
    }

    /// `GET /api/v1/plays.csv`: `kiosk report --csv`, as a download.
    func playsCSV() -> HTTPResponse {
        switch plays() {
        case .failure(let refusal): return refusal.response
        case .success(let report):
            return HTTPResponse(status: 200, text: report.csv, contentType: "text/csv; charset=utf-8",
                                headers: [("Content-Disposition", "attachment; filename=\"kiosk-plays.csv\"")])
        }
    }

    /// `GET /api/v1/log`: the last hour's lines at notice and above, newest last, and how many
    /// of them are errors.
    static func log(_ recent: RecentLog, now: Date = Date()) -> HTTPResponse {
        let lines = recent.lines(since: now.addingTimeInterval(-3600))
        let formatter = ISO8601DateFormatter()
        let values: [ControlValue] = lines.map { line in
            .object([("at", .string(formatter.string(from: line.at))), ("level", .string(line.level.rawValue)),
                     ("source", .string(line.source)), ("message", .string(line.message))])
        }
        let errors = lines.filter { $0.level >= .error }.count
        return WebReply.json(.object([("errors_last_hour", .integer(Int64(errors))), ("lines", .array(values))]))
    }

    /// `GET /api/v1/schedule`: the dry run's text and JSON for the next 7 days.
    func schedule() -> HTTPResponse {
        do {
            let config = try ConfigLoader.load(path: configPath)
            let dryRun = ScheduleDryRun(config: config, at: Date(), span: 7 * 86_400)
            return WebReply.json(.object([("text", .string(dryRun.text)), ("dry_run", dryRun.json)]))
        } catch {
            return WebReply.error(500, "\(error)")
        }
    }
}
