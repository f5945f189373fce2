/// XML's escapes undone, for kiosk's own readers of untrusted XML (a ticker's feed, CAP
/// alerts): the five entities, `&nbsp;` (feeds written as HTML use it) and numeric references;
/// anything else (an entity only a DTD would define) stays as written, so nothing expands.
public enum XMLEscapes {
    public static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[amp...]
            guard let semi = after.prefix(12).firstIndex(of: ";") else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let name = after[after.index(after: amp)..<semi]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " "]
            if let value = named[name] {
                out += value
            } else if name.hasPrefix("#"),
                      let code = name.hasPrefix("#x") || name.hasPrefix("#X") ? UInt32(name.dropFirst(2), radix: 16) : UInt32(name.dropFirst()),
                      let scalar = Unicode.Scalar(code), code != 0 {
                out.unicodeScalars.append(scalar)
            } else {
                out += after[...semi]
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
