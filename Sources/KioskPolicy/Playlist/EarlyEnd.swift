/// A file that ends well before the length its header promises: a copy to a stick or a
/// download that did not finish, a recording cut by a power loss. It plays to where it ends, as
/// it did; what is new is that it is said, once for the file and the place it ends (a half-copied
/// clip in a loop played its first seconds every pass without a word). Pure: the demux thread
/// asks at the end of a file it read through.
public enum EarlyEnd {
    /// The line to log when a file of `source` promised `promised` seconds and its packets ended
    /// at `reached`; nil when that is its length, give or take a second or a tenth of it (a
    /// header's rounding, a stream a little shorter than the other).
    public static func line(source: String, reached: Double, promised: Double) -> String? {
        guard promised.isFinite, reached.isFinite, promised > 0 else { return nil }
        let missing = promised - max(reached, 0)
        guard missing > max(1, promised / 10) else { return nil }
        return "\(source): the file ends at \(seconds(reached)) of the \(seconds(promised)) its header promises "
            + "(cut short: a copy or a download that did not finish?); played to where it ends"
    }

    /// "0.68 s", "1:02:03".
    static func seconds(_ value: Double) -> String {
        let value = max(value, 0)
        guard value >= 60 else { return "\(Double((value * 100).rounded()) / 100) s" }
        let whole = Int(value.rounded())
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let mmss = (minutes < 10 && hours > 0 ? "0" : "") + "\(minutes):" + (secs < 10 ? "0" : "") + "\(secs)"
        return hours > 0 ? "\(hours):\(mmss)" : mmss
    }
}
