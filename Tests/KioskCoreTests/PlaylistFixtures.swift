import Foundation
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

// What the playlist tests build on (PlaylistExpansionTests, PlaylistFileTests,
// OtherPlaylistFileTests, PlaylistFileFuzzTests, MediaArrivalTests): an item as kiosk.conf
// writes it and a disk in memory.

extension ItemConfig {
    /// An item written in kiosk.conf at `line` (column 5, as under `items:`).
    static func written(_ source: ItemSource, line: Int = 1) -> ItemConfig {
        ItemConfig(source: source, location: SourceLocation(file: "kiosk.conf", line: line, column: 5))
    }
}

/// An in-memory tree: the listed files, and every directory above them.
struct FakeFileSystem: PlaylistFileSystem {
    let files: Set<String>
    let directories: Set<String>
    /// Directories whose listing fails (permissions).
    let unreadable: Set<String>

    init(files: [String], emptyDirectories: [String] = [], unreadable: [String] = []) {
        self.files = Set(files)
        var directories = Set(emptyDirectories + unreadable)
        for path in files + emptyDirectories + unreadable {
            var parent = PathText.normalize(path + "/..")
            while parent != "/" && parent != "." { directories.insert(parent); parent = PathText.normalize(parent + "/..") }
            directories.insert(parent)
        }
        self.directories = directories
        self.unreadable = Set(unreadable)
    }

    /// Contents of small text files (a synced file's `.title`), by path.
    var texts: [String: String] = [:]

    func smallText(atPath path: String) -> String? { texts[PathText.normalize(path)] }

    /// Files' bytes, by path (none: an unreadable file).
    var contents: [String: [UInt8]] = [:]

    func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        guard let bytes = contents[PathText.normalize(path)], offset < bytes.count else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }

    func kind(ofItemAt path: String) -> FileKind? {
        let path = PathText.normalize(path)
        if files.contains(path) { return .file }
        return directories.contains(path) ? .directory : nil
    }

    func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        let path = PathText.normalize(path)
        guard directories.contains(path), !unreadable.contains(path) else {
            throw FileSystemError(reason: "permission denied")
        }
        let prefix = path == "/" ? "/" : path + "/"
        let children = (files.union(directories)).filter { $0.hasPrefix(prefix) && $0 != path }
            .map { String($0.dropFirst(prefix.count).split(separator: "/")[0]) }
        return Array(Set(children)).shuffled()   // real listings come in no particular order
    }
}

extension FakeFileSystem {
    /// `files` (no bytes) and the files of `contents` with their text as UTF-8.
    init(files: [String], contents: [String: String]) {
        self.init(files: files + Array(contents.keys))
        self.contents = contents.mapValues { Array($0.utf8) }
    }
}
