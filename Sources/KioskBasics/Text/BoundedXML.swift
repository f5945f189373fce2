/// A tree of an untrusted XML document (a CAP alert, an Atom feed of them), read by a small
/// reader of kiosk's own, as `FeedTitles` reads a ticker's feed: a general parser expands
/// entities a DTD declares (the "billion laughs"), fetches external ones, and builds a tree of
/// whatever size it is given. This one reads at most `maxBytes`, `maxElements` elements and
/// `maxDepth` levels; skips declarations, a DOCTYPE's internal subset, comments and processing
/// instructions; knows the five XML entities and numeric references only (any other stays as
/// written); takes CDATA as text. Names are kept without their namespace prefix ("cap:alert" is
/// "alert"): CAP feeds use prefixes freely. Not a validator: a document broken past repair
/// (unclosed elements at the end) gives what was read, and no root element at all is an error.
public enum BoundedXML {
    /// One element: its name, attributes, children and own text.
    public struct Element: Sendable, Equatable {
        /// The local name (no prefix), as written (CAP's names are case-sensitive).
        public var name: String
        /// Attributes by local name, unescaped.
        public var attributes: [String: String]
        public var children: [Element]
        /// The element's own text (its children's not included), unescaped, CDATA as written.
        public var text: String

        public init(name: String, attributes: [String: String] = [:], children: [Element] = [], text: String = "") {
            self.name = name
            self.attributes = attributes
            self.children = children
            self.text = text
        }

        /// The first child named `name`.
        public func child(_ name: String) -> Element? { children.first { $0.name == name } }

        /// The children named `name`, in order.
        public func children(_ name: String) -> [Element] { children.filter { $0.name == name } }

        /// The trimmed text of the first child named `name`; nil when there is none or it is empty.
        public func value(_ name: String) -> String? {
            guard let text = child(name)?.text.trimmingWhitespace(), !text.isEmpty else { return nil }
            return text
        }

        /// This element and all below it, depth first, that are named `name`.
        public func descendants(_ name: String) -> [Element] {
            var found: [Element] = []
            var stack = [self]
            while let element = stack.popLast() {
                if element.name == name { found.append(element) }
                stack.append(contentsOf: element.children.reversed())
            }
            return found
        }
    }

    public static let maxBytes = 4 << 20
    public static let maxElements = 20_000
    public static let maxDepth = 64

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case noRootElement
        case tooLarge(String)

        public var description: String {
            switch self {
            case .noRootElement: "not XML (no element in it)"
            case .tooLarge(let what): "too large to read (\(what))"
            }
        }
    }

    /// The document's root element, within a CAP alert's bounds.
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> BoundedXML.Element {
        try parse(bytes, maxBytes: maxBytes, maxElements: maxElements)
    }

    /// The same within bounds a reader of larger documents sets (a playlist file of 5,000
    /// tracks, ~7 elements each).
    public static func parse(_ bytes: [UInt8], maxBytes: Int, maxElements: Int) throws(Problem) -> BoundedXML.Element {
        guard bytes.count <= maxBytes else { throw .tooLarge("\(bytes.count) bytes, at most \(maxBytes)") }
        var reader = Reader(scalars: Array(String(decoding: bytes, as: UTF8.self).unicodeScalars), maxElements: maxElements)
        return try reader.document()
    }

    public static func parse(_ text: String) throws(Problem) -> BoundedXML.Element { try parse(Array(text.utf8)) }
}

private struct Reader {
    let scalars: [Unicode.Scalar]
    var index = 0
    var elements = 0
    let maxElements: Int

    init(scalars: [Unicode.Scalar], maxElements: Int) {
        self.scalars = scalars
        self.maxElements = maxElements
    }

    mutating func document() throws(BoundedXML.Problem) -> BoundedXML.Element {
        // The open elements, innermost last; each one's text gathered as read.
        var open: [(element: BoundedXML.Element, text: String.UnicodeScalarView)] = []
        var root: BoundedXML.Element?
        while index < scalars.count {
            guard scalars[index] == "<" else {
                let start = index
                while index < scalars.count, scalars[index] != "<" { index += 1 }
                if !open.isEmpty { open[open.count - 1].text.append(contentsOf: scalars[start..<index]) }
                continue
            }
            if starts(with: "<!--") {
                index = find("-->", from: index + 4).map { $0 + 3 } ?? scalars.count
            } else if starts(with: "<![CDATA[") {
                let end = find("]]>", from: index + 9) ?? scalars.count
                // Escaped so that the unescaping of the whole text leaves it as written.
                if !open.isEmpty {
                    for scalar in scalars[(index + 9)..<end] {
                        switch scalar {
                        case "&": open[open.count - 1].text.append(contentsOf: "&amp;".unicodeScalars)
                        default: open[open.count - 1].text.append(scalar)
                        }
                    }
                }
                index = min(end + 3, scalars.count)
            } else if starts(with: "<!") || starts(with: "<?") {
                skipDeclaration()
            } else if starts(with: "</") {
                let end = find(">", from: index) ?? scalars.count
                let name = localName(String(String.UnicodeScalarView(scalars[(index + 2)..<end])).trimmingWhitespace())
                index = min(end + 1, scalars.count)
                // Closes the innermost open element of that name (and any left unclosed in it).
                guard let depth = open.lastIndex(where: { $0.element.name == name }) else { continue }
                while open.count > depth {
                    let finished = close(open.removeLast())
                    if open.isEmpty { root = root ?? finished } else { open[open.count - 1].element.children.append(finished) }
                }
                if root != nil && open.isEmpty { return root! }
            } else {
                guard let end = tagEnd(from: index + 1) else { index = scalars.count; break }
                let body = String(String.UnicodeScalarView(scalars[(index + 1)..<end]))
                index = end + 1
                let selfClosing = body.hasSuffix("/")
                let (name, attributes) = parseTag(selfClosing ? String(body.dropLast()) : body)
                guard !name.isEmpty else { continue }
                elements += 1
                guard elements <= maxElements else { throw .tooLarge("over \(maxElements) elements") }
                let element = BoundedXML.Element(name: name, attributes: attributes)
                if selfClosing {
                    if open.isEmpty { return element }
                    open[open.count - 1].element.children.append(element)
                } else {
                    guard open.count < BoundedXML.maxDepth else { throw .tooLarge("nested over \(BoundedXML.maxDepth) levels") }
                    open.append((element, String.UnicodeScalarView()))
                }
            }
        }
        // Cut short: what was read, the open elements closed.
        while let last = open.popLast() {
            let finished = close(last)
            if open.isEmpty { root = finished } else { open[open.count - 1].element.children.append(finished) }
        }
        guard let root else { throw .noRootElement }
        return root
    }

    private func close(_ open: (element: BoundedXML.Element, text: String.UnicodeScalarView)) -> BoundedXML.Element {
        var element = open.element
        element.text = XMLEscapes.unescape(String(open.text))
        return element
    }

    /// The `>` ending a start tag, past quoted attribute values (which may hold `>`).
    private func tagEnd(from start: Int) -> Int? {
        var quote: Unicode.Scalar?
        var i = start
        while i < scalars.count {
            let scalar = scalars[i]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == ">" {
                return i
            }
            i += 1
        }
        return nil
    }

    /// "cap:alert xmlns='…' a=\"1\"" -> ("alert", ["xmlns": "…", "a": "1"]).
    private func parseTag(_ body: String) -> (String, [String: String]) {
        let trimmed = Substring(body).drop { $0.isWhitespace }
        let rawName = trimmed.prefix { !$0.isWhitespace }
        var attributes: [String: String] = [:]
        var rest = trimmed.dropFirst(rawName.count)
        while let equals = rest.firstIndex(of: "=") {
            let key = localName(String(rest[..<equals]).trimmingWhitespace())
            var after = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = after.first, quote == "\"" || quote == "'" else { break }
            after = after.dropFirst()
            let value = after.prefix { $0 != quote }
            if !key.isEmpty { attributes[key] = XMLEscapes.unescape(String(value)) }
            rest = after.dropFirst(value.count + 1)
        }
        return (localName(String(rawName)), attributes)
    }

    private func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    private func starts(with prefix: String) -> Bool {
        var i = index
        for scalar in prefix.unicodeScalars {
            guard i < scalars.count, scalars[i] == scalar else { return false }
            i += 1
        }
        return true
    }

    private func find(_ needle: String, from start: Int) -> Int? {
        let n = Array(needle.unicodeScalars)
        var i = start
        while i + n.count <= scalars.count {
            if scalars[i] == n[0] && scalars[i..<(i + n.count)].elementsEqual(n) { return i }
            i += 1
        }
        return nil
    }

    /// Past a `<!…>` or `<?…?>`, with a DOCTYPE's internal subset (`[ … ]`) skipped whole.
    private mutating func skipDeclaration() {
        var bracket = 0
        index += 2
        while index < scalars.count {
            switch scalars[index] {
            case "[": bracket += 1
            case "]": bracket = max(0, bracket - 1)
            case ">" where bracket == 0:
                index += 1
                return
            default: break
            }
            index += 1
        }
    }
}
