/// Which sources are live: a stream that has no end of its own (a camera over RTSP, a multicast
/// channel, an SRT feed, an HLS playlist without `EXT-X-ENDLIST`). A live item has no duration
/// cut-off, never ends at an end of file (that is its sender gone: a loss) and is never skipped
/// for being away: it is reopened until it comes back (`ReconnectPolicy.live`).
///
/// HTTP is live only as HLS without a duration: a plain file over HTTP whose length FFmpeg
/// cannot tell still ends at its end.
public enum LiveSource {
    /// Schemes whose streams are live whatever FFmpeg reads from them.
    public static let liveSchemes: Set<String> = ["rtsp", "rtsps", "rtmp", "rtmps", "rtmpt", "rtp", "udp", "srt", "tcp"]

    /// - Parameters:
    ///   - source: the item's URL or path.
    ///   - formatName: the demuxer FFmpeg chose (`hls`, `mpegts`, `rtsp`...).
    ///   - hasDuration: whether FFmpeg found a duration.
    public static func isLive(_ source: String, formatName: String, hasDuration: Bool) -> Bool {
        guard NetworkURL.isNetwork(source), NetworkURL.scheme(of: source) != nil else { return false }
        if isLiveByScheme(source) { return true }
        return formatName.split(separator: ",").contains("hls") && !hasDuration
    }

    /// Whether the source is live by its scheme alone (live HLS is known only once open).
    public static func isLiveByScheme(_ source: String) -> Bool {
        NetworkURL.scheme(of: source).map(liveSchemes.contains) ?? false
    }

    /// Whether reading the source binds a local port that a second reader in the process could
    /// not bind while the first holds it: unicast UDP or RTP (FFmpeg reads `udp://host:port` on
    /// local port `port`), an SRT listener or rendezvous, a TCP listener. Not a multicast group
    /// (FFmpeg reuses its address, so two screens can show one channel), nor `reuse=1`.
    public static func holdsItsPort(_ source: String) -> Bool {
        guard let scheme = NetworkURL.scheme(of: source), let rest = source.split(separator: "://", maxSplits: 1).last else { return false }
        let parts = rest.split(separator: "?", maxSplits: 1)
        let query = parts.count > 1 ? parts[1].lowercased().split(separator: "&").map(String.init) : []
        switch scheme {
        case "udp", "rtp":
            if query.contains("reuse=1") || query.contains("reuse_socket=1") { return false }
            var host = String(parts.first ?? "")
            if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
            if host.hasPrefix("[") { return !host.lowercased().hasPrefix("[ff") }   // IPv6: ff00::/8 is multicast
            let first = host.split(separator: ":").first.flatMap { $0.split(separator: ".").first }.flatMap { Int($0) }
            return !(first.map { (224...239).contains($0) } ?? false)
        case "srt": return query.contains("mode=listener") || query.contains("mode=rendezvous")
        case "tcp": return query.contains("listen=1") || query.contains("listen=2")
        default: return false
        }
    }

    /// How far back an HLS rejoin may start and still be the same timeline: FFmpeg joins a
    /// live playlist three segments from its end, and segments are up to 10 s.
    public static let hlsRejoinWindowSeconds: Int64 = 30

    /// Whether a live stream's first packet after a reopen starts a new timeline (a sender
    /// restarted from zero, the 33-bit wrap) rather than continuing the old one. A new timeline
    /// keeps all its packets (the decoders' timelines take the jump out); a continued one drops
    /// the packets it repeats.
    /// - A stream sent once (UDP, RTP, RTSP, SRT, RTMP) never repeats a packet: any step back
    ///   is a new timeline.
    /// - HLS fetches segments again: a rejoin (or a packager that died behind a server still
    ///   serving its playlist) starts up to three segments back, the same timeline; further
    ///   back than `hlsRejoinWindowSeconds` is a restart. A packager restarted from zero after
    ///   running less than that has its first packets up to the old position taken as repeats.
    public static func startsNewTimeline(firstTicks: Int64, lastTicks: Int64, ticksPerSecond: Int64, refetchesSegments: Bool) -> Bool {
        guard refetchesSegments else { return firstTicks <= lastTicks }
        let window = max(1, ticksPerSecond).multipliedReportingOverflow(by: hlsRejoinWindowSeconds)
        return !window.overflow && firstTicks < lastTicks - window.partialValue
    }

    /// Why a request cannot apply to a live item on screen, or nil: it has no position to seek
    /// to (the log said "cannot seek: Operation not permitted" while the socket answered
    /// success) and no rate but 1 (faster drains its buffer, so it flapped between buffering
    /// and playing; its latency is kept by 1 % steps of its own). Pausing is allowed: it
    /// catches up afterwards. Other items keep every request.
    public static func refusal(of request: PlayerRequest) -> String? {
        switch request {
        case .seek, .skip:
            return "the item on screen is a live stream, with no position to seek to"
        case .setRate(let rate) where rate.numerator != 0 && rate != .one,
             .setSpeed(let rate) where rate != .one:
            return "the item on screen is a live stream, played at rate 1 (pause is allowed)"
        default:
            return nil
        }
    }

    /// Whether the demuxer FFmpeg chose fetches segments (and so may repeat packets on a rejoin).
    public static func refetchesSegments(formatName: String) -> Bool {
        formatName.split(separator: ",").contains { $0 == "hls" || $0 == "dash" }
    }
}
