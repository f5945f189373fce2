/// Counts downloads whose bytes did not hash to the manifest's sha256. Each one is fetched
/// again; after `limit` mismatches of one file the manifest is not switched to until a new
/// manifest comes (a server that serves other bytes than it lists would otherwise be fetched
/// from forever).
public struct HashMismatchLedger: Sendable, Equatable {
    public static let limit = 3
    /// The manifest the counts are about (its ETag or its hash); a new one clears them.
    public private(set) var manifestIdentity: String?
    public private(set) var counts: [String: Int] = [:]

    public init() {}

    /// Starts counting for `identity`, forgetting the counts of another manifest.
    public mutating func use(manifest identity: String) {
        guard identity != manifestIdentity else { return }
        manifestIdentity = identity
        counts = [:]
    }

    /// Records one mismatch of the file with `sha256`; true while it may be fetched again.
    @discardableResult
    public mutating func recordMismatch(_ sha256: String) -> Bool {
        counts[sha256, default: 0] += 1
        return counts[sha256, default: 0] < Self.limit
    }

    /// Whether some file of this manifest mismatched `limit` times: no switch to it.
    public var blocksSwitch: Bool { counts.values.contains { $0 >= Self.limit } }

    public func mismatches(of sha256: String) -> Int { counts[sha256] ?? 0 }
}

/// TLS refuses a certificate that is not valid yet when the box's clock is behind (no RTC, no
/// NTP yet). The line then names the clock rather than blame the server.
public enum CertificateClock {
    /// Before this (2024-01-01) the clock is taken as unset.
    public static let plausibleSeconds: Int64 = 1_704_067_200

    /// OpenSSL's date as libcurl's certificate information gives it ("Start date:" value):
    /// `Mar  1 00:00:00 2025 GMT`, as seconds since 1970; nil for anything else.
    public static func seconds(parsingCertificateDate text: String) -> Int64? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let words = text.split(separator: " ").map(String.init)
        guard words.count == 5, words[4] == "GMT", let month = months.firstIndex(of: words[0]),
              let day = Int(words[1]), let year = Int(words[3]), let date = LocalDate(year: year, month: month + 1, day: day)
        else { return nil }
        let clock = words[2].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        return Int64(date.dayNumber) * 86_400 + Int64(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    /// The line for a TLS failure seen at `now` (seconds since 1970); `notBefore` when known.
    public static func message(tlsError: String, now: Int64, notBefore: Int64?) -> String {
        guard now < plausibleSeconds else { return tlsError }
        let clock = InstantText.text(nanoseconds: now * 1_000_000_000).prefix(10)
        let from = notBefore.map { "certificate valid from \(InstantText.text(nanoseconds: $0 * 1_000_000_000).prefix(10))" }
            ?? "certificate not accepted (\(tlsError))"
        return "\(from), clock says \(clock); retrying when the clock is set"
    }
}
