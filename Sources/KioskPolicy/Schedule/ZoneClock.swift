import Foundation

/// The wall clock of one time zone: what an instant reads as, and the instant a wall-clock time
/// means. The tz database (Foundation's `TimeZone`) says when the zone's offset changes; the
/// rule for what an operator's "07:00" means on a day the clock skips or repeats is kiosk's
/// (README, "Schedules"; FIELD-NOTES):
///
///   A wall-clock time means the first instant at which the local clock reads that time or
///   later.
///
/// So a time skipped in spring means the end of the gap (02:30 on a night that jumps from 02:00
/// to 03:00 is 03:00), a time that occurs twice in autumn means its first occurrence, and
/// times never run backwards: back-to-back windows stay back-to-back and nothing runs twice.
/// Zones that change by 30 minutes (Lord Howe) or at midnight (Santiago, Cairo) follow the same
/// rule. (Foundation's `Calendar.date(from:)` picks differently for skipped times.)
public struct ZoneClock: Sendable {
    public let zone: TimeZone

    public init(zone: TimeZone) { self.zone = zone }

    /// The box's zone (/etc/localtime), or the named one (`schedule.timezone`); nil when the
    /// tz database does not know the name.
    public init?(named name: String?) {
        guard let name else {
            self.init(zone: .current)
            return
        }
        guard let zone = TimeZone(identifier: name) else { return nil }
        self.init(zone: zone)
    }

    /// A warning when the environment's `TZ` names a zone the tz database does not know
    /// (Foundation then reads the box's clock as `zone`, UTC, silently); nil when TZ is unset,
    /// empty, or a zone it knows (":Europe/Berlin" and a zoneinfo path as well).
    public static func unknownTZWarning(_ tz: String?, readAs zone: TimeZone) -> String? {
        guard let tz, !tz.isEmpty else { return nil }
        var name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if let range = name.range(of: "zoneinfo/") { name = String(name[range.upperBound...]) }
        // A file (systemd's and Docker's TZ=:/etc/localtime) is read by the C library as it is.
        if name.hasPrefix("/") { return nil }
        guard TimeZone(identifier: name) == nil else { return nil }
        return "warning: TZ is '\(tz)', which the tz database does not know; times are read in \(zone.identifier) "
            + "(set TZ to an IANA name like Europe/Berlin, or schedule.timezone in kiosk.conf)"
    }

    /// The local clock's offset from UTC at `instant`, in seconds.
    public func offset(at instant: Date) -> Int { zone.secondsFromGMT(for: instant) }

    /// The calendar date the local clock shows at `instant`.
    public func localDate(of instant: Date) -> LocalDate {
        let local = instant.timeIntervalSince1970 + Double(offset(at: instant))
        return LocalDate(dayNumber: Int((local / 86_400).rounded(.down)))
    }

    /// Seconds since local midnight that the local clock shows at `instant`.
    public func secondsIntoDay(of instant: Date) -> Double {
        let local = instant.timeIntervalSince1970 + Double(offset(at: instant))
        return local - (local / 86_400).rounded(.down) * 86_400
    }

    /// The first instant at which the local clock reads `time` on `date`, or later. "24:00"
    /// is the next day's 00:00.
    public func instant(_ date: LocalDate, _ time: WallTime) -> Date {
        // The wall reading as seconds on a clock without zones; the answer lies within a day
        // of it (offsets are under 15 h), so the zone's pieces of constant offset from two days
        // before are walked in order: the first piece that shows the reading, or that starts
        // past it (a gap skipped it), holds the answer.
        let reading = Double(date.dayNumber * 86_400 + time.minutes * 60)
        let limit = reading + 2 * 86_400
        var start = reading - 2 * 86_400
        while start < limit {
            let offset = Double(offset(at: Date(timeIntervalSince1970: start)))
            let next = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: start))?
                .timeIntervalSince1970 ?? .infinity
            if start + offset >= reading { return Date(timeIntervalSince1970: start) }
            let candidate = reading - offset
            if candidate >= start && candidate < next { return Date(timeIntervalSince1970: candidate) }
            start = next
        }
        // Not reached with a consistent tz database; the plain conversion is the best guess.
        return Date(timeIntervalSince1970: reading - Double(offset(at: Date(timeIntervalSince1970: reading))))
    }

    /// "2026-03-29 03:00 +02:00", for `kiosk schedule` and log lines.
    public func describe(_ instant: Date) -> String {
        let date = localDate(of: instant)
        let seconds = Int(secondsIntoDay(of: instant).rounded(.down))
        let time = WallTime(hour: seconds / 3600, minute: seconds % 3600 / 60)!
        return "\(date) \(time) \(Self.describeOffset(offset(at: instant)))"
    }

    /// "+02:00", "-03:30", "+12:45".
    public static func describeOffset(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        let hours = minutes / 60, rest = minutes % 60
        return sign + (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}
