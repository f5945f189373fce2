/// Who may reach the web page at all, decided before any route runs (#36): the `Host` a browser
/// was sent to (DNS rebinding: a page of evil.example whose name is made to resolve to the box
/// would otherwise read the API with the browser's cookies, as Transmission's CVE-2018-5702) and
/// where an unsafe request comes from (`Origin`: a cross-site form or fetch). Pure: headers in,
/// a refusal's reason out.
public struct WebGate: Sendable, Equatable {
    /// `web.hosts`: the names the box is reached by (lowercased), besides IP literals and
    /// `localhost`, which no rebinding can use.
    public var allowedNames: [String]

    public init(allowedNames: [String] = []) {
        self.allowedNames = allowedNames.map { $0.lowercased() }
    }

    /// Nil where the `Host` header names the box: an IPv4 or IPv6 literal, `localhost`, or a name
    /// of `web.hosts`, with any port. Else why not.
    public func hostRefusal(_ host: String?) -> String? {
        guard let host, !host.isEmpty else { return "the request has no Host header" }
        guard let name = Self.hostName(of: host) else { return "the Host header '\(host)' is not a host and port" }
        if name == "localhost" || Self.isIPLiteral(name) || allowedNames.contains(name) { return nil }
        return "the Host '\(name)' is not one this box answers to (web.hosts names those besides its addresses)"
    }

    /// Nil where an unsafe request (POST and the rest) comes from a page of this box: `Origin`,
    /// else `Referer`, names the same host and port as `Host` (the scheme may differ: behind a TLS
    /// proxy that keeps `Host`, the browser's origin is https and kiosk sees http). A request with
    /// neither is refused unless `mayOmit` (a script with a bearer token, which a browser never
    /// sends on its own). `Sec-Fetch-Site: cross-site` is refused whatever else it says.
    public func originRefusal(method: String, host: String?, origin: String?, referer: String?,
                              fetchSite: String? = nil, mayOmit: Bool) -> String? {
        guard !Self.isSafe(method) else { return nil }
        if fetchSite?.lowercased() == "cross-site" { return "a cross-site request (Sec-Fetch-Site)" }
        guard let source = origin ?? referer else {
            return mayOmit ? nil : "an unsafe request without Origin or Referer from a browser session"
        }
        guard let sourceAuthority = Self.authority(ofURL: source) else { return "its Origin '\(source)' is not a URL of this box" }
        guard let host, sourceAuthority == host.lowercased() else {
            return "its Origin '\(source)' is not this box's page (\(host ?? "no Host"))"
        }
        return nil
    }

    /// GET and HEAD change nothing (the page's routes keep to that), so they need no Origin.
    public static func isSafe(_ method: String) -> Bool { method == "GET" || method == "HEAD" }

    /// `kiosk.local:8080` -> `kiosk.local`; `[::1]:8080` -> `::1`; lowercased. Nil for text that
    /// is not a host (spaces, a path, an empty port).
    static func hostName(of host: String) -> String? {
        let text = host.lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.count > 1 && rest.dropFirst().allSatisfy(\.isASCIIDigitCharacter))
            else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first, !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
        else { return nil }
        if parts.count == 2 { guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCIIDigitCharacter) else { return nil } }
        return String(name)
    }

    /// Dotted IPv4 (`192.168.1.20`) or an IPv6 literal (hex digits and colons).
    static func isIPLiteral(_ name: String) -> Bool {
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigitCharacter) && Int($0)! <= 255 }) {
            return true
        }
        return name.contains(":") && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }

    /// `https://Kiosk.local:8443/x` -> `kiosk.local:8443`; nil for `null` and what is not a URL.
    static func authority(ofURL url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return authority.lowercased()
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
