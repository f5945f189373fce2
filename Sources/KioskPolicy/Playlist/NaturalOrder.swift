/// Name order as people expect it: runs of digits compare as numbers ("clip2" before
/// "clip10"), letters compare without regard to case; ties fall back to plain string order so
/// the order is total and the same on every run.
public enum NaturalOrder {
    public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        precedes(chunks(of: a), a, chunks(of: b), b)
    }

    /// Splits every name once, then sorts (a directory of thousands of clips stays fast).
    public static func sorted(_ names: [String]) -> [String] {
        names.map { (chunks(of: $0), $0) }
            .sorted { precedes($0.0, $0.1, $1.0, $1.1) }
            .map(\.1)
    }

    private static func precedes(_ left: [Chunk], _ a: String, _ right: [Chunk], _ b: String) -> Bool {
        for (x, y) in zip(left, right) {
            if let order = compare(x, y) { return order }
        }
        if left.count != right.count { return left.count < right.count }
        return a < b
    }

    private enum Chunk {
        case digits(Substring)
        case text(String)
    }

    private static func chunks(of string: String) -> [Chunk] {
        var result: [Chunk] = []
        var start = string.startIndex
        while start < string.endIndex {
            let isDigit = isASCIIDigit(string[start])
            let end = string[start...].firstIndex { isASCIIDigit($0) != isDigit } ?? string.endIndex
            let run = string[start..<end]
            result.append(isDigit ? .digits(run) : .text(run.lowercased()))
            start = end
        }
        return result
    }

    /// nil when the chunks are equal for ordering purposes.
    private static func compare(_ x: Chunk, _ y: Chunk) -> Bool? {
        switch (x, y) {
        case let (.digits(a), .digits(b)):
            // Compare numerically without converting: no overflow on very long runs.
            let aValue = a.drop { $0 == "0" }, bValue = b.drop { $0 == "0" }
            if aValue.count != bValue.count { return aValue.count < bValue.count }
            if aValue != bValue { return aValue < bValue }
            return nil
        case let (.text(a), .text(b)):
            return a == b ? nil : a < b
        case (.digits, .text):
            return true    // "2.mp4" before "a.mp4", as in plain ASCII order
        case (.text, .digits):
            return false
        }
    }

    private static func isASCIIDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }
}
