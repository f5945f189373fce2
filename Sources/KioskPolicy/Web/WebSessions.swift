/// The browser sessions of the web page (#36): a random token in an HttpOnly, SameSite=Strict
/// cookie, and a CSRF token of its own that the page sends back on every unsafe request. Pure:
/// the caller gives the time (monotonic seconds) and the random numbers.
public struct WebSessions: Sendable {
    public struct Session: Sendable, Equatable {
        public let token: String
        /// Sent back by the page (`X-CSRF-Token`, or a form's `csrf` field) on unsafe requests.
        public let csrf: String
        public let opened: Int64
        public var lastUsed: Int64
    }

    /// A session unused this long ends (a browser left open on a desk for a weekend).
    public static let idleLimit: Int64 = 12 * 3600
    /// And any session after this long, used or not.
    public static let lifetime: Int64 = 7 * 24 * 3600
    /// At most this many at once; the least recently used goes first.
    public static let limit = 32

    private var sessions: [String: Session] = [:]

    public init() {}

    public var count: Int { sessions.count }

    /// A new session (after a login).
    public mutating func open<R: RandomNumberGenerator>(now: Int64, using random: inout R) -> Session {
        expire(now: now)
        if sessions.count >= Self.limit, let oldest = sessions.values.min(by: { $0.lastUsed < $1.lastUsed }) {
            sessions[oldest.token] = nil
        }
        let session = Session(token: Self.token(using: &random), csrf: Self.token(using: &random), opened: now, lastUsed: now)
        sessions[session.token] = session
        return session
    }

    /// The session of a cookie's token, marked used now; nil when unknown or expired.
    public mutating func session(for token: String, now: Int64) -> Session? {
        expire(now: now)
        guard var session = sessions.first(where: { WebSecret.matches($0.key, token) })?.value else { return nil }
        session.lastUsed = now
        sessions[session.token] = session
        return session
    }

    public mutating func close(_ token: String) {
        sessions[token] = nil
    }

    private mutating func expire(now: Int64) {
        sessions = sessions.filter { now - $0.value.lastUsed < Self.idleLimit && now - $0.value.opened < Self.lifetime }
    }

    /// 32 random bytes as 64 hex digits.
    public static func token<R: RandomNumberGenerator>(using random: inout R) -> String {
        WebSecret.hex((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
    }
}

/// Comparing secrets without telling by the time taken how much of a guess was right.
public enum WebSecret {
    public static func matches(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }
}

/// Login attempts, slowed where they fail (#36: 1,000 wrong passwords refused, the box playing on):
/// a client's first `freeFailures` failures cost nothing, each one after doubles its wait (1 s,
/// 2 s ... at most 5 min); more than `globalLimit` failures a minute from all clients together
/// (many addresses, or a proxy in front) make every client that has failed wait out that minute,
/// never one that has not (guesses from elsewhere never lock the operator out). An IPv6 client
/// is its /64: one host holds a whole /64 to change addresses in.
public struct LoginThrottle: Sendable {
    public static let freeFailures = 5
    public static let longestWait: Int64 = 300
    public static let globalLimit = 60
    /// At most this many clients remembered; the one whose last failure is oldest goes first.
    public static let clientLimit = 1024

    private struct Record: Sendable {
        var failures: Int
        var lastFailure: Int64
        var blockedUntil: Int64
    }

    private var clients: [String: Record] = [:]
    private var recent: [Int64] = []

    public init() {}

    /// Seconds `client` must wait before its next attempt is read; nil: now.
    public mutating func wait(for address: String, now: Int64) -> Int64? {
        let client = Self.key(address)
        recent.removeAll { now - $0 >= 60 }
        guard let record = clients[client] else { return nil }
        if recent.count >= Self.globalLimit, let first = recent.first { return max(1, first + 60 - now) }
        guard record.blockedUntil > now else { return nil }
        return record.blockedUntil - now
    }

    /// The address a record is kept under: IPv4 as it is, IPv6 by its first four groups (/64).
    static func key(_ address: String) -> String {
        guard address.contains(":"), !address.hasPrefix("::ffff:") else { return address }
        let halves = address.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var groups = halves[0].split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        if halves.count == 2 {
            let tail = halves[1].split(separator: ":", omittingEmptySubsequences: true).map(String.init)
            groups += Array(repeating: "0", count: max(0, 8 - groups.count - tail.count)) + tail
        }
        return groups.prefix(4).joined(separator: ":") + "::/64"
    }

    public mutating func failed(_ address: String, now: Int64) {
        let client = Self.key(address)
        recent.append(now)
        var record = clients[client] ?? Record(failures: 0, lastFailure: now, blockedUntil: now)
        record.failures += 1
        record.lastFailure = now
        if record.failures > Self.freeFailures {
            let exponent = min(record.failures - Self.freeFailures - 1, 16)
            record.blockedUntil = now + min(Self.longestWait, Int64(1) << exponent)
        }
        if clients[client] == nil, clients.count >= Self.clientLimit,
           let oldest = clients.min(by: { $0.value.lastFailure < $1.value.lastFailure })?.key {
            clients[oldest] = nil
        }
        clients[client] = record
    }

    public mutating func succeeded(_ address: String) {
        clients[Self.key(address)] = nil
    }
}
