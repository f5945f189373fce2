/// A periodic service's problem lines, said once per outage: a pass that finds the problems the
/// pass before found says none of them again (content sync logged "a file did not match its
/// sha256 3 times; not switching until the manifest changes", a 404 or a server down at every
/// poll: 288 lines a day at the default 5 minutes, where MQTT says one line per outage); a new
/// problem is said at once; the first pass without any says so, in one line. Pure: the service's
/// thread feeds it.
public struct RepeatedProblems: Sendable {
    /// The pass before's problems and this pass's, by their steady form (`withoutTimings`), with
    /// the line as first said, in the order found.
    private var before: [(steady: String, line: String)] = []
    private var now: [(steady: String, line: String)] = []

    public init() {}

    /// What a pass ended without: the lines the pass before said that this one did not find,
    /// and how many problems remain.
    public struct Gone: Sendable, Equatable {
        public var lines: [String]
        public var remaining: Int
    }

    /// Whether `line`, found in this pass, is to be said (the pass before did not say it).
    /// Lines are compared without the timings libcurl writes into its errors ("after 3 ms",
    /// "after 10001 milliseconds with 512 bytes received"), which differ at every attempt;
    /// every other number (a status, a size, a count) still makes a line new.
    public mutating func shouldSay(_ line: String) -> Bool {
        let steady = Self.withoutTimings(line)
        if let known = before.first(where: { $0.steady == steady }) {
            if !now.contains(where: { $0.steady == steady }) { now.append(known) }
            return false
        }
        if now.contains(where: { $0.steady == steady }) { return false }   // twice in one pass
        now.append((steady, line))
        return true
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

    /// The pass is over: what went since the pass before (worth a line: the one fixed of two
    /// problems was never said gone while the other stayed); nil when nothing went.
    public mutating func endPass() -> Gone? {
        defer { before = now; now = [] }
        let gone = before.filter { old in !now.contains { $0.steady == old.steady } }.map(\.line)
        return gone.isEmpty ? nil : Gone(lines: gone, remaining: now.count)
    }

    /// The line a service logs for `gone`: "no problem in this pass; the 2 said before are
    /// gone", or, while others remain, the one that went, quoted.
    public static func goneLine(_ gone: Gone) -> String {
        if gone.remaining == 0 {
            return "no problem in this pass; " + (gone.lines.count == 1 ? "the one said before is gone" : "the \(gone.lines.count) said before are gone")
        }
        let left = gone.remaining == 1 ? "1 problem remains" : "\(gone.remaining) problems remain"
        // "Not seen", not "gone": a pass that stopped early (the manifest unreachable) did not
        // look for what it did not reach.
        return "not seen in this pass: " + gone.lines.map { "'\($0)'" }.joined(separator: ", ") + "; \(left)"
    }
}
