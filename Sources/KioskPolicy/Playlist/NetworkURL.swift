/// What the engine needs to know about a source that is a URL: whether it comes over the
/// network (and so can stall, drop and come back), and how to name it in a log line without
/// giving away the credentials written into it.
public enum NetworkURL {
    /// Query keys whose values are secrets often put into stream URLs (signed CDN links,
    /// API tokens). Compared in lowercase.
    static let secretQueryKeys: Set<String> = [
        "password", "passwd", "pass", "pwd", "token", "access_token", "auth", "key", "api_key",
        "apikey", "secret", "signature", "sig",
    ]

    /// The scheme of `scheme://...` in lowercase, nil for a path.
    public static func scheme(of source: String) -> String? { ItemSource.urlScheme(of: source) }

    /// True for `scheme://...` with any scheme but `file`: http(s), HLS over http(s), rtsp...
    /// FFmpeg's pseudo-sources (`lavfi:`), capture devices (`v4l2://`) and paths are local.
    public static func isNetwork(_ source: String) -> Bool {
        guard let scheme = ItemSource.urlScheme(of: source) else { return false }
        return scheme != "file" && !CaptureSource.isCapture(source)
    }

    /// The lowercased extension of a URL's path, its query and fragment left out
    /// (`https://cms/a/Menu.PNG?v=3` -> `png`); "" when its last path component has none.
    public static func pathExtension(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "" }
        let afterScheme = url[schemeEnd.upperBound...]
        let end = afterScheme.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        let pathAndHost = afterScheme[..<end]
        guard let slash = pathAndHost.firstIndex(of: "/") else { return "" }   // a host alone has no path
        let last = pathAndHost[slash...].split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return last[last.index(after: dot)...].lowercased()
    }

    /// `source` with the password of `user:password@` (or a whole `token@`) and the values of
    /// secret-looking query keys replaced by `***`. Anything that is not a URL is returned as
    /// it is.
    public static func masked(_ source: String) -> String {
        guard let schemeEnd = source.range(of: "://") else { return source }
        let afterScheme = source[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? afterScheme.endIndex
        var authority = String(afterScheme[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            let host = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                authority = String(userInfo[..<colon]) + ":***@" + String(host)
            } else {
                authority = "***@" + String(host)
            }
        }
        let rest = maskedQuery(String(afterScheme[authorityEnd...]))
        return String(source[..<schemeEnd.upperBound]) + authority + rest
    }

    /// The path, with each `key=value` of the query masked when `key` names a secret.
    private static func maskedQuery(_ pathAndQuery: String) -> String {
        guard let question = pathAndQuery.firstIndex(of: "?") else { return pathAndQuery }
        let afterQuery = pathAndQuery[pathAndQuery.index(after: question)...]
        let fragmentStart = afterQuery.firstIndex(of: "#") ?? afterQuery.endIndex
        let pairs = afterQuery[..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let key = pair[..<equals]
            guard secretQueryKeys.contains(key.lowercased()) else { return String(pair) }
            return String(key) + "=***"
        }
        return String(pathAndQuery[...question]) + pairs.joined(separator: "&") + String(afterQuery[fragmentStart...])
    }
}
