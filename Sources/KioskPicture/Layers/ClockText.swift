import Foundation

/// A clock layer's text: the instant in a zone, through a Unicode date pattern ("HH:mm",
/// "EEE d MMM HH:mm"), with a locale's day and month names. Foundation's DateFormatter (ICU's
/// patterns and the system's zone database): a box in Berlin shows 03:00 right after 01:59 on
/// the last Sunday of March.
public final class ClockText: @unchecked Sendable {
    // The formatter is used from the presenter thread only; ClockText is made per layer.
    private let formatter = DateFormatter()
    public let pattern: String

    /// nil when `timeZone` names no zone the system knows (the config reports it before).
    public init?(pattern: String, timeZone: String?, locale: String?) {
        self.pattern = pattern
        formatter.locale = Locale(identifier: locale ?? "en_US_POSIX")
        if let timeZone {
            guard let zone = TimeZone(identifier: timeZone) else { return nil }
            formatter.timeZone = zone
        } else {
            formatter.timeZone = .current
        }
        formatter.dateFormat = pattern
    }

    public func text(at instant: Date) -> String { formatter.string(from: instant) }

    /// When the text can next change: the next whole second for patterns with seconds, else
    /// the next whole minute (zones are offset by whole minutes).
    public func nextChange(after instant: Date) -> Date {
        let step: Double = pattern.contains("s") ? 1 : 60
        let seconds = instant.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / step).rounded(.down) * step + step)
    }

    /// Whether `name` is a zone the system knows (for the config's check).
    public static func knowsZone(_ name: String) -> Bool { TimeZone(identifier: name) != nil }
}
