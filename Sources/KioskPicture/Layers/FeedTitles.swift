/// The item titles of an RSS or Atom feed, for a ticker. A small reader of its own rather than
/// an XML library: a feed is untrusted, and a general parser expands entities a DTD declares
/// (the "billion laughs"), fetches external ones, or builds a tree of a 50 MB body. This one
/// reads at most `maxBytes`, knows no DTD (a declared entity stays as written), takes only
/// `<title>` inside `<item>` (RSS) or `<entry>` (Atom), CDATA included, and unescapes the five
/// XML entities and numeric references; markup in a title (Atom's type="html") is dropped.
public enum FeedTitles {
    public static let maxBytes = 1 << 20
    public static let maxTitles = 100
    public static let maxTitleLength = 300

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notAFeed
        public var description: String { "not an RSS or Atom feed (no <rss>, <feed> or <rdf:RDF>)" }
    }

    /// The titles in order; an empty list for a feed without items. Throws for a body that is
    /// no feed at all (an HTML error page, garbage).
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> [String] {
        let text = String(decoding: bytes.prefix(maxBytes), as: UTF8.self)
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var depth = 0          // inside how many <item>/<entry>
        var sawRoot = false
        var titles: [String] = []
        while index < scalars.count, titles.count < maxTitles {
            guard scalars[index] == "<" else { index += 1; continue }
            if starts(scalars, at: index, with: "<!--") {
                index = find(scalars, "-->", from: index + 4).map { $0 + 3 } ?? scalars.count
                continue
            }
            if starts(scalars, at: index, with: "<![CDATA[") || starts(scalars, at: index, with: "<!") || starts(scalars, at: index, with: "<?") {
                // Declarations (a DOCTYPE and its entities) and processing instructions: skipped.
                index = skipDeclaration(scalars, from: index)
                continue
            }
            guard let end = find(scalars, ">", from: index) else { break }
            let tag = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
            index = end + 1
            let closing = tag.hasPrefix("/")
            let selfClosing = tag.hasSuffix("/")
            let name = localName(of: tag)
            switch name {
            case "rss", "feed", "rdf": sawRoot = true
            case "item", "entry":
                if closing { depth = max(0, depth - 1) } else if !selfClosing { depth += 1 }
            case "title" where depth > 0 && !closing && !selfClosing:
                let (raw, after) = content(scalars, from: index)
                index = after
                let title = clean(raw)
                if !title.isEmpty { titles.append(title) }
            default: break
            }
        }
        guard sawRoot else { throw .notAFeed }
        return titles
    }

    /// "atom:title attr=…" -> "title"; "/item" -> "item"; "rdf:RDF" -> "rdf".
    private static func localName(of tag: String) -> String {
        var name = tag.drop { $0 == "/" }.prefix { !$0.isWhitespace && $0 != "/" }
        if let colon = name.lastIndex(of: ":") {
            let prefix = name[..<colon].lowercased()
            name = prefix == "rdf" ? "rdf" : name[name.index(after: colon)...]
        }
        return name.lowercased()
    }

    /// The text up to the next `</…title>`, CDATA taken as it is; and where reading goes on.
    private static func content(_ s: [Unicode.Scalar], from start: Int) -> (String, Int) {
        var out = String.UnicodeScalarView()
        var index = start
        while index < s.count {
            if starts(s, at: index, with: "<![CDATA[") {
                let end = find(s, "]]>", from: index + 9) ?? s.count
                out.append(contentsOf: escapeMarkup(s[(index + 9)..<min(end, s.count)]))
                index = end + 3
            } else if starts(s, at: index, with: "</") {
                let end = find(s, ">", from: index) ?? s.count
                let name = localName(of: String(String.UnicodeScalarView(s[(index + 1)..<min(end, s.count)])))
                if name == "title" { return (String(out), end + 1) }
                out.append(contentsOf: s[index..<min(end + 1, s.count)])
                index = end + 1
            } else {
                out.append(s[index])
                index += 1
            }
        }
        return (String(out), s.count)
    }

    /// CDATA's text escaped so the unescaping below leaves it as written.
    private static func escapeMarkup(_ text: ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        for scalar in text {
            switch scalar {
            case "&": out += "&amp;".unicodeScalars
            case "<": out += "&lt;".unicodeScalars
            default: out.append(scalar)
            }
        }
        return out
    }

    /// Tags dropped, entities unescaped (an Atom html title is escaped markup: unescaped, then
    /// its tags dropped), white space collapsed, the length capped.
    static func clean(_ raw: String) -> String {
        var text = XMLEscapes.unescape(dropTags(raw))
        if text.contains("<") { text = XMLEscapes.unescape(dropTags(text)) }
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        return String(words.joined(separator: " ").prefix(maxTitleLength))
    }

    private static func dropTags(_ text: String) -> String {
        var out = ""
        var inTag = false
        for char in text {
            if char == "<" { inTag = true } else if char == ">" && inTag { inTag = false; out.append(" ") }
            else if !inTag { out.append(char) }
        }
        return out
    }

    private static func starts(_ s: [Unicode.Scalar], at index: Int, with prefix: String) -> Bool {
        var i = index
        for scalar in prefix.unicodeScalars {
            guard i < s.count, s[i] == scalar || (scalar.properties.isUppercase && s[i] == Unicode.Scalar(scalar.value + 32)!) else { return false }
            i += 1
        }
        return true
    }

    private static func find(_ s: [Unicode.Scalar], _ needle: String, from start: Int) -> Int? {
        let n = Array(needle.unicodeScalars)
        var i = start
        while i + n.count <= s.count {
            if s[i] == n[0] && Array(s[i..<(i + n.count)]) == n { return i }
            i += 1
        }
        return nil
    }

    /// Past a `<!…>` or `<?…?>`, with a DOCTYPE's internal subset (`[ … ]`) skipped whole.
    private static func skipDeclaration(_ s: [Unicode.Scalar], from start: Int) -> Int {
        var index = start + 2
        var bracket = 0
        while index < s.count {
            switch s[index] {
            case "[": bracket += 1
            case "]": bracket = max(0, bracket - 1)
            case ">" where bracket == 0: return index + 1
            default: break
            }
            index += 1
        }
        return s.count
    }
}

/// What one fetch of a feed gave.
public enum FeedFetchResult: Sendable, Equatable {
    /// The body (at most `FeedTitles.maxBytes`) and its validator.
    case body([UInt8], etag: String?)
    /// 304: nothing changed since `etag`.
    case notModified
    /// One line: the status, the network's error, a body too large.
    case failed(String)
}

/// Fetches `url`, with If-None-Match `etag` when set; at most `maxBytes`, within `timeout`
/// seconds (KioskFetch's `SmallHTTPGet.feed`, libcurl).
public typealias FeedFetch = @Sendable (_ url: String, _ etag: String?, _ maxBytes: Int, _ timeout: Double) -> FeedFetchResult

