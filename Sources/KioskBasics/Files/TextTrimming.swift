/// Whitespace off both ends without Foundation (which the pure targets use sparingly): kiosk.conf
/// values, HTTP headers, minisign lines.
extension String {
    package func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
