import Synchronization

/// A file system seen from inside `root` only: a name whose links lead out of it, or that is
/// neither a regular file nor a folder (a device, a FIFO), is not there. A USB stick is a
/// passer-by's: its `w.mp4 -> /dev/sda` must not be opened, its `all -> /` not walked (5,000
/// of the box's files played, the root file system listed every second), its
/// `menu.mp4 -> /etc/shadow` not copied into the box's media folder. A folder reached through a
/// link inside it (`loop -> .`) is not entered either: two such links walked 8 levels deep
/// listed one clip 256 times, and copy mode copied it that often.
///
/// The cheap way first: a name in a folder already found to be reached without links, that is
/// no link itself (one `lstat`, where the base file system can tell: `knowsLinks`), is what it
/// says; only links are followed to their end (`realpath`). Following every name cost a
/// 5,000-file stick ~0.5 s of CPU per look here, and the stick watcher looks every second.
/// The folders found are kept for this view's life: one listing.
public struct ConfinedFileSystem: PlaylistFileSystem {
    public let base: any PlaylistFileSystem
    public let root: String

    /// The root with its links followed, resolved once.
    private let realRoot: String?
    /// The root as its names begin.
    private let top: String
    /// Folders below the root found reached without links (by normalized path).
    private let reached = ReachedFolders()

    public init(base: any PlaylistFileSystem = LocalFileSystem(), root: String) {
        self.base = base
        self.root = root
        realRoot = base.resolvedPath(root)
        top = PathText.normalize(root)
    }

    private func allows(_ path: String) -> Bool {
        if let decided = quickKind(path) { return decided != nil }
        return base.isConfined(path, to: root)
    }

    public func kind(ofItemAt path: String) -> FileKind? {
        if let decided = quickKind(path) { return decided }
        guard let kind = base.kind(ofItemAt: path), base.isConfined(path, to: root) else { return nil }
        if kind == .directory {
            guard isReachedWithoutLinks(path) else { return nil }
            reached.insert(PathText.normalize(path))
        }
        return kind
    }

    /// The kind of `path` told without following links: `.some(nil)` when it is not there (or
    /// is a device, a FIFO); nil when only following it can tell (a link, the root itself, a
    /// name outside the folders found, a base file system that cannot tell a link).
    private func quickKind(_ path: String) -> FileKind?? {
        guard base.knowsLinks, realRoot != nil else { return nil }
        let name = PathText.normalize(path)
        // Decided on the name only when it is what the base is asked for: `lnk/..` folded as
        // text is not where the kernel takes it when `lnk` is a link.
        guard name == path else { return nil }
        if reached.contains(name) { return .some(.directory) }
        let parent = PathText.normalize(name + "/..")
        guard name != top, parent == top || reached.contains(parent) else { return nil }
        switch base.entryKind(atPath: name) {
        case .file?: return .some(.file)
        case .directory?:
            reached.insert(name)
            return .some(.directory)
        case .other?, nil: return .some(nil)
        case .link?: return nil
        }
    }

    /// Whether `path` is where its name says below the root: no link on the way to it.
    private func isReachedWithoutLinks(_ path: String) -> Bool {
        let name = PathText.normalize(path)
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

/// The folders one confined view found reached without links; shared by its copies.
private final class ReachedFolders: Sendable {
    private let folders = Mutex<Set<String>>([])
    func contains(_ path: String) -> Bool { folders.withLock { $0.contains(path) } }
    func insert(_ path: String) { _ = folders.withLock { $0.insert(path) } }
}
