/// An item's URL checked as kiosk.conf is read. FFmpeg takes any text, and a URL it cannot open
/// is a live source tried again until it answers: a misspelt scheme or a port that is not one
/// held the whole playlist on that item without a word from `kiosk check`. What the text alone
/// shows to be wrong is an error at its line.
public enum SourceURLCheck {
    /// The schemes kiosk hands to FFmpeg's protocols (those a signage box may play from), and
    /// kiosk's own capture devices (`v4l2://`, `CaptureSource`). `file://` is a path by then.
    static let schemes = ["http", "https", "hls", "rtsp", "rtsps", "rtmp", "rtmps", "rtmpt", "rtmpe", "rtmpte", "rtmpts",
                          "udp", "rtp", "srtp", "srt", "rist", "tcp", "tls", "ftp", "sftp", "smb", "mmsh", "mmst",
                          "gopher", "gophers", "ipfs", "ipns", "data", "file"]
        + CaptureSource.formats.keys.sorted()

    /// Schemes whose host may be left empty: a listener on every interface or a multicast
    /// group joined by port (`udp://@:5000`, `srt://:9000?mode=listener`, `tcp://:4000?listen`).
    static let listening: Set<String> = ["udp", "rtp", "srtp", "srt", "rist", "tcp", "tls"]

    /// Schemes with no network host: the rest of the text is data or a path.
    static let hostless = Set(["data", "file"] + CaptureSource.formats.keys)

    /// Why `url` (with a scheme, as `ItemSource.urlScheme` reads it) cannot be opened, nil when
    /// nothing in its text says so. `hls+http://` is FFmpeg's HLS over the scheme after the `+`.
    public static func problem(in url: String) -> String? {
        guard let written = ItemSource.urlScheme(of: url) else { return nil }
        let scheme = written.hasPrefix("hls+") ? String(written.dropFirst(4)) : written
        guard schemes.contains(scheme) else {
            return "'\(written)' is not a scheme kiosk plays; expected one of: " + schemes.joined(separator: ", ")
                + suggestion(for: written, among: schemes)
        }
        guard !hostless.contains(scheme), let start = url.range(of: "://")?.upperBound else { return nil }
        let rest = url[start...]
        var authority = rest[..<(rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex)]
        // Credentials come before the last '@' (a password may hold one too).
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring, port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                return "its IPv6 host opens '[' and never closes it; expected [address] with an optional :port, like "
                    + "\(written)://[::1]:8080/"
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                return "'\(after)' follows its IPv6 host [\(host)]; expected nothing there, or :port"
            }
            port = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = authority.firstIndex(of: ":") {
            // As FFmpeg splits it (av_url_split): the host ends at the first ':'.
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        } else {
            host = authority
            port = nil
        }
        if host.isEmpty && !listening.contains(scheme) {
            return "it has no host; expected \(written)://host/..., like \(written)://192.168.1.20/"
        }
        if let port, !(port.allSatisfy(\.isASCII) && (Int(port).map { (1...65535).contains($0) } ?? false)) {
            return "its port is '\(port)'; expected a number from 1 to 65535 after the host's ':'"
        }
        return nil
    }
}
