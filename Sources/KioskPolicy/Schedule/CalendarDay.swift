/// A time of day as an operator writes it in kiosk.conf: "07:30", or "24:00" for the end of
/// the day (a window may end there, none starts there).
public struct WallTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0...1440.
    public let minutes: Int

    public init?(hour: Int, minute: Int) {
        guard ((0...23).contains(hour) && (0...59).contains(minute)) || (hour == 24 && minute == 0) else { return nil }
        minutes = hour * 60 + minute
    }

    /// "7:30", "07:30" or "24:00"; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public static let midnight = WallTime(hour: 0, minute: 0)!
    public static let endOfDay = WallTime(hour: 24, minute: 0)!

    public var description: String {
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.minutes < b.minutes }
}

/// A day of the week; `rawValue` is ISO 8601's number (Monday 1 ... Sunday 7).
public enum Weekday: Int, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    public static let weekdays: Set<Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]
    public static let weekend: Set<Weekday> = [.saturday, .sunday]
    public static let every = Set(Weekday.allCases)

    public var description: String { Self.names[rawValue - 1] }
    private static let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// "mon", "Monday", ...: a full English name or its first three letters.
    public init?(parsing text: String) {
        let lower = text.lowercased()
        guard lower.count >= 3, let index = Self.names.firstIndex(where: { $0 == lower || $0.prefix(3) == lower }) else { return nil }
        self.init(rawValue: index + 1)
    }

    /// The days a word names: one day, "weekdays", "weekend", "daily" / "every day".
    public static func days(named text: String) -> Set<Weekday>? {
        switch text.lowercased() {
        case "weekdays": weekdays
        case "weekend", "weekends": weekend
        case "daily", "every day", "everyday", "all": every
        default: Weekday(parsing: text).map { [$0] }
        }
    }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}

/// A date on the box's calendar, without a time or a zone: what weekdays and campaign dates
/// are tested on. Proleptic Gregorian; the arithmetic is integer (days since 1970-01-01), the
/// conversions are Howard Hinnant's `days_from_civil` and `civil_from_days`.
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// nil when the day does not exist (February 30th).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= LocalDate.days(inMonth: month, of: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// "2026-03-29"; nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The date `dayNumber` days after 1970-01-01.
    public init(dayNumber: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01 (negative before).
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    public func adding(days: Int) -> LocalDate { LocalDate(dayNumber: dayNumber + days) }

    /// 1970-01-01 was a Thursday.
    public var weekday: Weekday {
        let fromMonday = ((dayNumber + 3) % 7 + 7) % 7
        return Weekday(rawValue: fromMonday + 1)!
    }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool { a.dayNumber < b.dayNumber }

    static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
