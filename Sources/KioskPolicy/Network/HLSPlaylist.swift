/// What kiosk reads of an HLS playlist beside FFmpeg's demuxer (RFC 8216): enough to tell a live
/// stream that moved on from one whose packager restarted from zero, which libavformat (5.1,
/// 7.1) does not say. Untrusted text: anything that is not a playlist parses to nil.
public struct HLSPlaylist: Sendable, Equatable {
    /// `EXT-X-MEDIA-SEQUENCE`: the sequence number of the first segment listed (0 when absent).
    public var mediaSequence: Int
    /// The segments' URIs as written, in order.
    public var segments: [String]
    /// `EXT-X-TARGETDURATION` in seconds (at least 1: a playlist without it is taken as 1 s).
    public var targetDuration: Int
    /// `EXT-X-ENDLIST`: the stream is finished (not live).
    public var hasEnded: Bool
    /// A master playlist's variant URIs (`EXT-X-STREAM-INF`), in order; empty for a media playlist.
    public var variants: [String]
    /// Each variant's `BANDWIDTH` attribute (nil when absent or unreadable), as `variants`.
    public var variantBandwidths: [Int?] = []

    public init(mediaSequence: Int = 0, segments: [String] = [], targetDuration: Int = 1, hasEnded: Bool = false, variants: [String] = []) {
        self.mediaSequence = mediaSequence
        self.segments = segments
        self.targetDuration = targetDuration
        self.hasEnded = hasEnded
        self.variants = variants
    }

    /// The sequence number of the last segment listed (`mediaSequence - 1` when none is).
    public var lastSequence: Int { mediaSequence + segments.count - 1 }

    /// Parses `text`; nil when it does not begin with `#EXTM3U`.
    public static func parse(_ text: String) -> HLSPlaylist? {
        var lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces }.filter { !$0.isEmpty }[...]
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[lines.startIndex] = String(first.dropFirst()) }
        guard lines.first == "#EXTM3U" else { return nil }
        var playlist = HLSPlaylist()
        var nextIsVariant = false
        var bandwidth: Int?
        for line in lines.dropFirst() {
            if line.hasPrefix("#") {
                if let value = tagValue(line, "#EXT-X-MEDIA-SEQUENCE:") {
                    // RFC 8216 allows 2^64; past 2^53 no live stream gets, and sums would overflow.
                    guard let number = Int(value), number >= 0, number <= 1 << 53 else { return nil }
                    playlist.mediaSequence = number
                } else if let value = tagValue(line, "#EXT-X-TARGETDURATION:"), let seconds = Double(value), seconds.isFinite {
                    playlist.targetDuration = Int(Swift.max(1, Swift.min(seconds.rounded(.up), 3600)))
                } else if line == "#EXT-X-ENDLIST" {
                    playlist.hasEnded = true
                } else if let attributes = tagValue(line, "#EXT-X-STREAM-INF:") {
                    nextIsVariant = true
                    bandwidth = attribute("BANDWIDTH", in: attributes).flatMap { Int($0) }
                }
            } else if nextIsVariant {
                playlist.variants.append(line)
                playlist.variantBandwidths.append(bandwidth)
                nextIsVariant = false
            } else {
                playlist.segments.append(line)
            }
        }
        return playlist
    }

    /// `scheme://...` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`), not a `://` in a query.
    private static func hasScheme(_ reference: String) -> Bool {
        guard let end = reference.range(of: "://"), let first = reference.first, first.isLetter, first.isASCII else { return false }
        return reference[..<end.lowerBound].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// The variant FFmpeg's demuxer plays, told by the `variant_bitrate` it gives the stream:
    /// the first whose `BANDWIDTH` is `bandwidth`, else the first (FFmpeg's own first choice).
    public func variant(bandwidth: Int?) -> String? {
        if let bandwidth, let index = variantBandwidths.firstIndex(of: bandwidth), index < variants.count {
            return variants[index]
        }
        return variants.first
    }

    /// `name`'s value in an attribute list (`BANDWIDTH=800000,CODECS="avc1.4d401e,mp4a.40.2"`):
    /// commas inside quotes belong to a value; `AVERAGE-BANDWIDTH` is not `BANDWIDTH`.
    static func attribute(_ name: String, in list: String) -> String? {
        var pairs: [Substring] = []
        var start = list.startIndex
        var quoted = false
        for index in list.indices {
            if list[index] == "\"" { quoted.toggle() }
            if list[index] == ",", !quoted { pairs.append(list[start..<index]); start = list.index(after: index) }
        }
        pairs.append(list[start...])
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), pair[..<equals].trimmingSpaces == name else { continue }
            return String(pair[pair.index(after: equals)...]).trimmingSpaces
        }
        return nil
    }

    private static func tagValue(_ line: String, _ tag: String) -> String? {
        line.hasPrefix(tag) ? String(line.dropFirst(tag.count)).trimmingSpaces : nil
    }

    /// `reference` (a variant's or segment's URI) against the playlist's URL `base`: absolute
    /// URLs as they are, `/path` on the base's host, anything else beside the base (its query
    /// dropped). nil when `base` has no scheme and host.
    public static func resolve(_ reference: String, against base: String) -> String? {
        if hasScheme(reference) { return reference }
        guard let schemeEnd = base.range(of: "://") else { return nil }
        if reference.hasPrefix("//") { return base[..<schemeEnd.lowerBound] + ":" + reference }
        let afterScheme = base[schemeEnd.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        guard hostEnd > afterScheme.startIndex else { return nil }
        let origin = base[..<hostEnd]
        if reference.hasPrefix("/") { return origin + reference }
        let path = base[hostEnd...].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
        return origin + directory + reference
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

private extension String {
    var trimmingSpaces: String { self[...].trimmingSpaces }
}
