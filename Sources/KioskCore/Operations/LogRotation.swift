/// When and how an append-only log (the proof-of-play file) is rotated, decided without
/// touching the disk: the writer asks before each line and carries out the renames.
public struct LogRotation: Sendable, Equatable {
    /// Older files kept beside the current one: plays.jsonl.1 (newest) ... .N (oldest).
    public static let keptFiles = 3

    public let path: String
    public let limit: Int
    public let kept: Int

    public init(path: String, limit: Int, kept: Int = LogRotation.keptFiles) {
        self.path = path
        self.limit = limit
        self.kept = Swift.max(1, kept)
    }

    /// Whether a file of `size` bytes must be rotated before `adding` more are appended. A
    /// line longer than the limit still goes into a fresh file of its own: the file is never
    /// left empty forever, and never grows past one line over the limit.
    public func needsRotation(currentSize size: Int, adding: Int) -> Bool {
        size > 0 && size + adding > limit
    }

    /// The renames, in the order to carry them out: the oldest is overwritten first, so each
    /// step renames onto a name already moved away (a rename replaces an existing target).
    public var renames: [(from: String, to: String)] {
        var steps: [(from: String, to: String)] = []
        for number in stride(from: kept - 1, through: 1, by: -1) {
            steps.append((from: "\(path).\(number)", to: "\(path).\(number + 1)"))
        }
        steps.append((from: path, to: "\(path).1"))
        return steps
    }

    /// The most the files together hold: bounded, whatever plays.
    public var maximumTotalBytes: Int { (kept + 1) * limit }
}
