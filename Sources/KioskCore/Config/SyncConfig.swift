import Foundation

/// `sync`: the playlist as a timeline shared by every box (`SyncTimeline`). Off without it.
public struct SyncConfig: Sendable, Equatable {
    /// `epoch`: when the timeline began, as nanoseconds of CLOCK_REALTIME since 1970 (UTC).
    /// nil: not synchronised, each box plays from its own start.
    public var epoch: Int64?
    /// The content keys (`manifest`, `interval`, `dir`...): media fetched from a server.
    public var content = ContentSyncConfig()

    public init(epoch: Int64? = nil) { self.epoch = epoch }
}

/// An instant written as ISO 8601 with its offset (`2026-01-01T00:00:00Z`,
/// `2026-01-01 01:00:00.5+01:00`): nanoseconds since 1970-01-01T00:00:00Z. An offset is
/// required: a local time would mean different instants on boxes in different zones.
public enum InstantText {
    public static let expected = "an instant like 2026-01-01T00:00:00Z (UTC, or with an offset like +01:00)"

    public static func nanoseconds(parsing text: String) -> Int64? {
        let chars = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= chars.count else { return nil }
            var value = 0
            for char in chars[index..<(index + digits)] {
                guard char >= 48 && char <= 57 else { return nil }
                value = value * 10 + Int(char - 48)
            }
            index += digits
            return value
        }
        func expect(_ allowed: String) -> Bool {
            guard index < chars.count, allowed.utf8.contains(chars[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
              let second = number(2) else { return nil }
        var nanos = 0
        if index < chars.count, chars[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < chars.count, chars[index] >= 48, chars[index] <= 57 {
                if digits < 9 { nanos = nanos * 10 + Int(chars[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 9 { for _ in digits..<9 { nanos *= 10 } }
        }
        var offsetSeconds = 0
        if expect("Zz") {
            offsetSeconds = 0
        } else if index < chars.count, chars[index] == UInt8(ascii: "+") || chars[index] == UInt8(ascii: "-") {
            let sign = chars[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours <= 23, minutes <= 59 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == chars.count, let date = LocalDate(year: year, month: month, day: day),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        let seconds = Int64(date.dayNumber) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        return seconds * 1_000_000_000 + Int64(nanos)
    }

    /// The instant as `2026-01-01T00:00:00Z` (fractions of a second when there are any).
    public static func text(nanoseconds: Int64) -> String {
        let seconds = nanoseconds >= 0 ? nanoseconds / 1_000_000_000 : (nanoseconds - 999_999_999) / 1_000_000_000
        let fraction = nanoseconds - seconds * 1_000_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let date = LocalDate(dayNumber: Int(days))
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text = "\(date)T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))"
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }
}
