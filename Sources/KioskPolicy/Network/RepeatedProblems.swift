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
    public mutating func shouldSay(_ line: String) -> Bool {
        now.insert(line)
        return !before.contains(line)
    }

    /// The pass is over. The number of problems the pass before had, when this one had none
    /// (then "they are gone" is worth a line); nil otherwise.
    public mutating func endPass() -> Int? {
        defer { before = now; now = [] }
        return now.isEmpty && !before.isEmpty ? before.count : nil
    }
}
