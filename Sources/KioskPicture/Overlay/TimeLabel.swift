/// The overlay's time labels: `mm:ss` under an hour, `h:mm:ss` from an hour on, like a phone's
/// player. Whole seconds, rounded down, so the label turns at the second (as the bar does).
public enum TimeLabel {
    public static func text(for time: MediaTime) -> String {
        let seconds = Swift.max(0, time.seconds)
        guard seconds.isFinite else { return "--:--" }
        let whole = Int(seconds.rounded(.down))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        if hours > 0 { return "\(hours):" + twoDigits(minutes) + ":" + twoDigits(rest) }
        return twoDigits(minutes) + ":" + twoDigits(rest)
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
