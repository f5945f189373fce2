/// Text from outside (a file's line, a feed's identifier, a client's word) as kiosk writes it
/// into a log line, a message or a file of one record a line.

/// As a message quotes it: control characters escaped (`\u{a}`), at most `limit` characters
/// and "..." (a line of a hostile file can be megabytes long, a name can hold a line break
/// that would forge a second log line).
package func quotedForMessage(_ text: String, limit: Int = 160) -> String {
    let shown = withControlCharactersEscaped(String(text.unicodeScalars.prefix(limit)))
    return text.unicodeScalars.count > limit ? shown + "..." : shown
}

/// `text` with its control characters (C0 and DEL) written as `\u{a}`: one line, whatever it holds.
package func withControlCharactersEscaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
    var shown = ""
    for scalar in text.unicodeScalars {
        shown += scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
    }
    return shown
}

extension String {
    /// Each UTF-8 byte of the scalars `escaping` picks written as `%XX` (upper-case hex, as RFC
    /// 3986), the others kept: what `removingPercentEncoding` reads back when `%` is among them.
    package func percentEscaped(where escaping: (Unicode.Scalar) -> Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard escaping(scalar) else {
                out.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                out.append("%")
                out.append(Self.hexDigits[Int(byte >> 4)])
                out.append(Self.hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(out)
    }

    /// A field of a file of one record a line, fields split at tabs: `%`, tab, CR and LF escaped.
    package var escapedForRecordLine: String {
        percentEscaped { "%\t\n\r".unicodeScalars.contains($0) }
    }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
}
