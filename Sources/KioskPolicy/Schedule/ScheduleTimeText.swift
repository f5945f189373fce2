import Foundation

/// The texts of `kiosk schedule`: the instant of `--at`, the span of `--for`, and instants
/// written with their UTC offset.
public enum ScheduleTimeText {
    /// The longest `--for`: the evaluator looks ahead at most 400 days for a change.
    public static let longestSpan: Double = 400 * 86_400

    /// "7d", "36h", "90m", "45s", "1d12h", "1.5h", or plain seconds ("600"); nil for anything
    /// else, and for zero or more than `longestSpan`.
    public static func parseDuration(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var total = 0.0, number = ""
        for character in text.lowercased() {
            if character.isASCII && (character.isNumber || character == ".") {
                number.append(character)
            } else if let unit = units[character], let value = Double(number) {
                total += value * unit
                number = ""
            } else {
                return nil
            }
        }
        if !number.isEmpty {
            // A bare number is seconds, but only alone: "1d30" is a typo, not 1 d 30 s.
            guard total == 0, let value = Double(number) else { return nil }
            total = value
        }
        return total > 0 && total <= longestSpan ? total : nil
    }

    /// An ISO 8601 instant: "2026-10-22T12:00:00+02:00", "2026-10-22T10:00Z",
    /// "2026-10-22 12:00" or "2026-10-22". Without an offset the time is read on `clock`, the
    /// schedule's own wall clock (a time skipped in spring means the end of the gap). nil for
    /// anything else.
    public static func parseInstant(_ text: String, clock: ZoneClock) -> Date? {
        let characters = Array(text.trimmingCharacters(in: .whitespaces))
        guard characters.count >= 10, let date = LocalDate(parsing: String(characters[0..<10])) else { return nil }
        guard characters.count > 10 else { return clock.instant(date, .midnight) }
        guard characters[10] == "T" || characters[10] == "t" || characters[10] == " " else { return nil }
        var rest = String(characters[11...])
        var offset: Int?
        if rest.hasSuffix("Z") || rest.hasSuffix("z") {
            offset = 0
            rest.removeLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let seconds = parseOffset(String(rest[sign...])) else { return nil }
            offset = seconds
            rest = String(rest[..<sign])
        }
        guard let (hour, minute, seconds) = parseTime(rest) else { return nil }
        if let offset {
            let local = Double(date.dayNumber * 86_400 + hour * 3_600 + minute * 60) + seconds
            return Date(timeIntervalSince1970: local - Double(offset))
        }
        return clock.instant(date, WallTime(hour: hour, minute: minute)!).addingTimeInterval(seconds)
    }

    /// Why `text`, written as a date (YYYY-MM-DD, then anything), names none: "February 2026
    /// has no day 30", "there is no month 13". nil when the date exists or is not written so
    /// (`parseInstant` says that), for a message better than "not an ISO 8601 time".
    public static func missingDay(in text: String) -> String? {
        let parts = text.trimmingCharacters(in: .whitespaces).prefix(10).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
              LocalDate(year: year, month: month, day: day) == nil else { return nil }
        guard (1...12).contains(month) else { return "there is no month \(parts[1]) (01 to 12)" }
        let name = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                    "November", "December"][month - 1]
        return "\(name) \(year) has no day \(day) (\(name) has days 1 to \(LocalDate.days(inMonth: month, of: year)) then)"
    }

    /// "12:00", "12:00:30", "12:00:30.5" -> (12, 0, 30.5).
    private static func parseTime(_ text: String) -> (Int, Int, Double)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts[0].count == 2, parts[1].count == 2,
              parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII),
              let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var seconds = 0.0
        if parts.count == 3 {
            guard parts[2].count >= 2, parts[2].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                  let value = Double(parts[2]), value >= 0, value < 60 else { return nil }
            seconds = value
        }
        return (hour, minute, seconds)
    }

    /// "+02:00", "-0330", "+05" -> seconds east of UTC.
    private static func parseOffset(_ text: String) -> Int? {
        let sign = text.first == "-" ? -1 : 1
        let digits = text.dropFirst().replacingOccurrences(of: ":", with: "")
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let hours = Int(digits.prefix(2)), let minutes = Int(digits.dropFirst(2).isEmpty ? "0" : String(digits.dropFirst(2))),
              hours <= 14, minutes < 60 else { return nil }
        return sign * (hours * 3_600 + minutes * 60)
    }

    /// "2026-10-25T02:00:00+01:00": the local reading of `instant` on `clock`, whole seconds.
    public static func iso8601(_ instant: Date, clock: ZoneClock) -> String {
        let seconds = Int(clock.secondsIntoDay(of: instant).rounded(.down))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(clock.localDate(of: instant))T\(two(seconds / 3_600)):\(two(seconds % 3_600 / 60)):\(two(seconds % 60))"
            + ZoneClock.describeOffset(clock.offset(at: instant))
    }

    /// "2026-10-25 02:00:00 +01:00", for people.
    public static func readable(_ instant: Date, clock: ZoneClock) -> String {
        let iso = iso8601(instant, clock: clock)
        let offset = ZoneClock.describeOffset(clock.offset(at: instant))
        return iso.dropLast(offset.count).replacingOccurrences(of: "T", with: " ") + " " + offset
    }
}
