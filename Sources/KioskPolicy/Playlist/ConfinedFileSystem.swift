/// A file system seen from inside `root` only: a name whose links lead out of it, or that is
/// neither a regular file nor a folder (a device, a FIFO), is not there. A USB stick is a
/// passer-by's: its `w.mp4 -> /dev/sda` must not be opened, its `all -> /` not walked (5,000
/// of the box's files played, the root file system listed every second), its
/// `menu.mp4 -> /etc/shadow` not copied into the box's media folder. A folder reached through a
/// link inside it (`loop -> .`) is not entered either: two such links walked 8 levels deep
/// listed one clip 256 times, and copy mode copied it that often.
public struct ConfinedFileSystem: PlaylistFileSystem {
    public let base: any PlaylistFileSystem
    public let root: String

    /// The root with its links followed, resolved once.
    private let realRoot: String?

    public init(base: any PlaylistFileSystem = LocalFileSystem(), root: String) {
        self.base = base
        self.root = root
        realRoot = base.resolvedPath(root)
    }

    private func allows(_ path: String) -> Bool { base.isConfined(path, to: root) }

    public func kind(ofItemAt path: String) -> FileKind? {
        guard let kind = base.kind(ofItemAt: path), allows(path) else { return nil }
        if kind == .directory, !isReachedWithoutLinks(path) { return nil }
        return kind
    }

    /// Whether `path` is where its name says below the root: no link on the way to it.
    private func isReachedWithoutLinks(_ path: String) -> Bool {
        let name = PathText.normalize(path), top = PathText.normalize(root)
        guard name != top else { return true }
        guard let realRoot, PathText.isInside(name, top), let real = base.resolvedPath(path) else { return false }
        let below = name.dropFirst(top.hasSuffix("/") ? top.count : top.count + 1)
        return real == PathText.join(realRoot, String(below))
    }

    public func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        guard allows(path) else { throw FileSystemError(reason: "not a folder inside \(root)") }
        return try base.contentsOfDirectory(atPath: path)
    }

    public func smallText(atPath path: String) -> String? { allows(path) ? base.smallText(atPath: path) : nil }

    public func unsettledFiles(under path: String) -> [String] { base.unsettledFiles(under: path) }

    public func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        allows(path) ? base.bytes(atPath: path, offset: offset, count: count) : []
    }

    public func fingerprint(atPath path: String) -> FileFingerprint? { allows(path) ? base.fingerprint(atPath: path) : nil }

    public func isConfined(_ path: String, to root: String) -> Bool { base.isConfined(path, to: root) }

    public func resolvedPath(_ path: String) -> String? { base.resolvedPath(path) }
}
