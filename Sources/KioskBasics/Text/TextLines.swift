/// The lines of a text one at a time, broken at "\n", "\r\n" or a lone "\r" (Unix, Windows and
/// old Macs), as `split(omittingEmptySubsequences: false)` on those would give them but never
/// all held at once: a 4 MiB file of newlines is 4 million lines, ~128 MB of substrings.
public struct TextLines: Sequence, IteratorProtocol {
    private let text: String
    private var start: String.Index
    private var done = false

    public init(_ text: String) {
        self.text = text
        start = text.startIndex
    }

    public mutating func next() -> Substring? {
        guard !done else { return nil }
        let scalars = text.unicodeScalars
        var index = start
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == "\n" || scalar == "\r" {
                // A line break is always a character boundary (Unicode's grapheme rules break
                // around CR and LF, keeping only CR LF together): the slice is whole characters.
                let line = text[start..<index]
                var after = scalars.index(after: index)
                if scalar == "\r", after < scalars.endIndex, scalars[after] == "\n" { after = scalars.index(after: after) }
                start = after
                return line
            }
            index = scalars.index(after: index)
        }
        done = true
        return text[start...]
    }
}
