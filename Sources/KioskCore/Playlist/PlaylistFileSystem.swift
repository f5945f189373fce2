import Foundation

public enum FileKind: Sendable, Equatable {
    case file
    case directory
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
}

extension PlaylistFileSystem {
    public func smallText(atPath path: String) -> String? { nil }
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

    public func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw FileSystemError(reason: (error as NSError).localizedDescription)
        }
    }
}

/// Path text helpers: plain string work, no file-system access.
enum PathText {
    /// `path` made absolute against `base` (unless it already is), with "." and ".." and
    /// doubled slashes folded away. A relative base gives a relative result.
    static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") || base.isEmpty { return normalize(path) }
        return normalize(base + "/" + path)
    }

    static func normalize(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if let last = parts.last, last != ".." { parts.removeLast() }
                else if !isAbsolute { parts.append(part) }   // "/.." is "/"; "../x" stays
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The lowercased extension of the last component, "" when there is none.
    static func lowercasedExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
