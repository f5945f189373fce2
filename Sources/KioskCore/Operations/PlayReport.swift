import Foundation

/// `kiosk report`: plays and seconds shown per item and day from proof-of-play lines. Pure:
/// the command reads the file and prints what this returns.
public struct PlayReport: Sendable, Equatable {
    /// One item on one day.
    public struct Row: Sendable, Equatable {
        /// The day as the kiosk's clock wrote it (the date of `start`, in its own offset).
        public var day: String
        public var item: Int
        public var source: String
        public var title: String?
        /// Plays begun that day: every outcome except `skipped` (which showed nothing).
        public var plays: Int
        public var completed: Int
        public var seconds: Double
        /// The records' `playlist`, `played_as` and `by` (absent in a file kiosk wrote before
        /// them: nil, "loop", nil). Plays of one file in the loop and as an override are two rows.
        public var playlist: String? = nil
        public var playedAs = "loop"
        public var by: String? = nil
    }

    /// A line that could not be read, reported and left out.
    public struct BadLine: Sendable, Equatable, CustomStringConvertible {
        public var number: Int
        public var reason: String
        public var description: String { "line \(number): \(reason)" }
    }

    public private(set) var rows: [Row] = []
    public private(set) var badLines: [BadLine] = []

    /// Reads the lines of a proof-of-play file (one JSON object each; blank lines are ignored).
    public init(text: String) {
        var index: [String: Int] = [:]
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let record: Row
            switch Self.parse(trimmed) {
            case .success(let row): record = row
            case .failure(let bad):
                badLines.append(BadLine(number: offset + 1, reason: bad.reason))
                continue
            }
            let key = [record.day, "\(record.item)", record.source, record.playlist ?? "", record.playedAs, record.by ?? ""]
                .joined(separator: "\u{0}")
            if let at = index[key] {
                rows[at].plays += record.plays
                rows[at].completed += record.completed
                rows[at].seconds += record.seconds
            } else {
                index[key] = rows.count
                rows.append(record)
            }
        }
        rows.sort { ($0.day, $0.item, $0.source, $0.playlist ?? "", $0.playedAs, $0.by ?? "")
            < ($1.day, $1.item, $1.source, $1.playlist ?? "", $1.playedAs, $1.by ?? "") }
    }

    private struct Unreadable: Error { let reason: String }

    private static func parse(_ line: String) -> Result<Row, Unreadable> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            return .failure(Unreadable(reason: "not a JSON object (a line cut short by a power loss?)"))
        }
        guard let item = object["item"] as? Int, item >= 0 else { return .failure(Unreadable(reason: "no item index")) }
        guard let source = object["path"] as? String else { return .failure(Unreadable(reason: "no path")) }
        guard let start = object["start"] as? String, ISOTime.date(start) != nil, start.count >= 10 else {
            return .failure(Unreadable(reason: "no start time in ISO 8601"))
        }
        guard let number = object["seconds"] as? NSNumber else { return .failure(Unreadable(reason: "no seconds shown")) }
        // A play is at most about 30 years (the sum of many would otherwise reach infinity).
        guard number.doubleValue.isFinite, (0...1e9).contains(number.doubleValue) else {
            return .failure(Unreadable(reason: "seconds shown is \(number), not 0 to 1e9"))
        }
        let seconds = number.doubleValue
        guard let outcome = object["outcome"] as? String,
              ["completed", "skipped", "failed", "interrupted"].contains(outcome) else {
            return .failure(Unreadable(reason: "no outcome (completed, skipped, failed or interrupted)"))
        }
        let shown = outcome == "skipped" ? 0 : 1
        return .success(Row(day: String(start.prefix(10)), item: item, source: source, title: object["title"] as? String,
                            plays: shown, completed: outcome == "completed" ? 1 : 0, seconds: seconds,
                            playlist: object["playlist"] as? String, playedAs: object["played_as"] as? String ?? "loop",
                            by: object["by"] as? String))
    }

    /// An aligned table for a terminal.
    public var table: String {
        let header = ["day", "item", "plays", "completed", "seconds", "title or path"]
        let body = rows.map { row in
            [row.day, "\(row.item)", "\(row.plays)", "\(row.completed)", String(format: "%.1f", row.seconds),
             (row.title ?? row.source) + row.playedAsNote]
        }
        let widths = (0..<header.count).map { column in ([header] + body).map { $0[column].count }.max() ?? 0 }
        return ([header] + body).map { cells in
            cells.enumerated().map { column, cell in
                // Numbers right-aligned, words left; the last column is not padded.
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                if column == cells.count - 1 { return cell }
                return (1...4).contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// RFC 4180 CSV with a header line.
    public var csv: String {
        let header = "day,item,path,title,plays,completed,seconds,playlist,played_as,by"
        let lines = rows.map { row in
            [row.day, "\(row.item)", Self.csvField(row.source), Self.csvField(row.title ?? ""), "\(row.plays)",
             "\(row.completed)", String(format: "%.3f", row.seconds), Self.csvField(row.playlist ?? ""), Self.csvField(row.playedAs),
             Self.csvField(row.by ?? "")].joined(separator: ",")
        }
        return ([header] + lines).joined(separator: "\r\n") + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PlayReport.Row {
    /// After the title: " [override evacuate]" for a row not played in the loop, " (lunch)" for
    /// a playlist other than the default: rows the table would otherwise show alike.
    var playedAsNote: String {
        let list = playlist.map { $0 == "default" ? "" : " (\($0))" } ?? ""
        return list + (playedAs == "loop" ? "" : " [" + ([playedAs] + (by.map { [$0] } ?? [])).joined(separator: " ") + "]")
    }
}
