/// Columns by rows of a span, written `2x1`.
public struct GridSize: Sendable, Hashable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) { self.columns = columns; self.rows = rows }
    public var count: Int { columns * rows }
    public var description: String { "\(columns)x\(rows)" }

    /// `2x1`; nil for anything else (sides 1-16).
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]),
              (1...16).contains(columns), (1...16).contains(rows) else { return nil }
        self.init(columns: columns, rows: rows)
    }
}
