/// A periodic service's problem lines, said once per outage: a pass that finds the problems the
/// pass before found says none of them again (content sync logged "a file did not match its
/// sha256 3 times; not switching until the manifest changes", a 404 or a server down at every
/// poll: 288 lines a day at the default 5 minutes, where MQTT says one line per outage); a new
/// problem is said at once; the first pass without any says so, in one line. Pure: the service's
/// thread feeds it.
public struct RepeatedProblems: Sendable {
    private var before: Set<String> = []
    private var now: Set<String> = []

    public init() {}

    /// Whether `line`, found in this pass, is to be said (the pass before did not say it).
    /// Lines are compared without the timings libcurl writes into its errors ("after 3 ms",
    /// "after 10001 milliseconds with 512 bytes received"), which differ at every attempt;
    /// every other number (a status, a size, a count) still makes a line new.
    public mutating func shouldSay(_ line: String) -> Bool {
        let steady = Self.withoutTimings(line)
        now.insert(steady)
        return !before.contains(steady)
    }

    /// `line` with the attempt's timings and the bytes it got so far replaced by "N".
    static func withoutTimings(_ line: String) -> String {
        var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for index in words.indices where !words[index].isEmpty && words[index].allSatisfy(\.isASCII) && words[index].allSatisfy(\.isNumber) {
            let previous = index > 0 ? words[index - 1] : ""
            let next = index + 1 < words.count ? words[index + 1] : ""
            let timing = previous == "after" && (next.hasPrefix("ms") || next.hasPrefix("milliseconds") || next.hasPrefix("seconds"))
            let received = (previous == "with" || previous == "of") && (next.hasPrefix("bytes") || next == "out")
            if timing || received { words[index] = "N" }
        }
        return words.joined(separator: " ")
    }

    /// The pass is over. The number of problems the pass before had, when this one had none
    /// (then "they are gone" is worth a line); nil otherwise.
    public mutating func endPass() -> Int? {
        defer { before = now; now = [] }
        return now.isEmpty && !before.isEmpty ? before.count : nil
    }
}
