/// Where something was written: a file and a 1-based line and column (columns count Unicode
/// scalars, as libyaml does). Line 0 means "the file as a whole" (it could not be read).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { line > 0 ? "\(file):\(line):\(column)" : file }
}
