import Foundation

public enum FileKind: Sendable, Equatable {
    case file
    case directory
}

/// What a name is itself, its link not followed (`lstat`).
public enum EntryKind: Sendable, Equatable {
    case file, directory, link
    /// A device, a FIFO, a socket.
    case other
}

/// Why a directory could not be listed (permissions, gone, not a directory).
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// The little of the file system that config classification and playlist expansion need, so
/// unit tests can hand in a fake tree. Paths are absolute or relative to the process's
/// working directory; symbolic links are followed.
public protocol PlaylistFileSystem: Sendable {
    /// nil when nothing is there (or it cannot be reached).
    func kind(ofItemAt path: String) -> FileKind?
    /// The names (not paths) in a directory, in no particular order.
    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String]
    /// A small text file's contents (a synced file's `.title`), nil when there is none.
    func smallText(atPath path: String) -> String?
    /// Files under `path` (at any depth) left out of the listings because they are not ready
    /// (still being written, or empty: a watched folder's `SettledFileSystem`), so an item that
    /// lists nothing can say why. None for a plain file system.
    func unsettledFiles(under path: String) -> [String]
    /// Up to `count` bytes of the file at `path` from `offset` (fewer at its end; none when it
    /// cannot be read): what a file is when its name does not say (`StillSignature`).
    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8]
    /// What tells this file's version from another's (device, inode, size, change time), nil
    /// when it cannot be had: what was read of it is kept until it changes (`GIFPictureCache`).
    func fingerprint(atPath path: String) -> FileFingerprint?
    /// Whether `path` is a file or folder inside `root` for real: after its links are
    /// followed, and neither a device, a FIFO nor a socket (a USB stick's list, `confinement`).
    func isConfined(_ path: String, to root: String) -> Bool
    /// `path` with its links followed (realpath), nil when it cannot be reached.
    func resolvedPath(_ path: String) -> String?
    /// Whether `entryKind` tells a link from what it leads to; a confined view then follows
    /// only the links (`ConfinedFileSystem`). A file system that cannot tell says false.
    var knowsLinks: Bool { get }
    /// What is at `path` itself, a last link not followed; nil when nothing is there. Asked
    /// only of a file system that `knowsLinks`.
    func entryKind(atPath path: String) -> EntryKind?
}

extension PlaylistFileSystem {
    public func smallText(atPath path: String) -> String? { nil }
    public func unsettledFiles(under path: String) -> [String] { [] }
    public func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] { [] }
    public func fingerprint(atPath path: String) -> FileFingerprint? { nil }
    /// By the names alone (a file system of no links and no devices, as the tests' fakes).
    public func isConfined(_ path: String, to root: String) -> Bool { PathText.isInside(path, root) }
    public func resolvedPath(_ path: String) -> String? { PathText.normalize(path) }
    public var knowsLinks: Bool { false }
    public func entryKind(atPath path: String) -> EntryKind? { nil }
}

/// The real file system, through Foundation's FileManager.
public struct LocalFileSystem: PlaylistFileSystem {
    public init() {}

    public func kind(ofItemAt path: String) -> FileKind? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        return isDirectory.boolValue ? .directory : .file
    }

    public func smallText(atPath path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else { return nil }
        return String(data: data, encoding: .utf8)
    }

    public func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0 else { return [] }
        // O_NONBLOCK: a FIFO named as an item must not hang the expansion.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return got > 0 ? Array(bytes.prefix(got)) : []
    }

    public func fingerprint(atPath path: String) -> FileFingerprint? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        #if canImport(Darwin)
        let (changed, modified) = (info.st_ctimespec, info.st_mtimespec)
        #else
        let (changed, modified) = (info.st_ctim, info.st_mtim)
        #endif
        return FileFingerprint(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                               changed: Int64(changed.tv_sec) * 1_000_000_000 + Int64(changed.tv_nsec),
                               modified: Int64(modified.tv_sec) * 1_000_000_000 + Int64(modified.tv_nsec))
    }

    public var knowsLinks: Bool { true }

    public func entryKind(atPath path: String) -> EntryKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .link
        default: return .other
        }
    }

    public func resolvedPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    public func isConfined(_ path: String, to root: String) -> Bool {
        guard let real = realpath(path, nil), let realRoot = realpath(root, nil) else { return false }
        defer { free(real); free(realRoot) }
        var info = stat()
        guard stat(real, &info) == 0, [S_IFREG, S_IFDIR].contains(info.st_mode & S_IFMT) else { return false }
        return PathText.isInside(String(cString: real), String(cString: realRoot))
    }

    public func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw FileSystemError(reason: (error as NSError).localizedDescription)
        }
    }
}
