import Foundation

/// The file system as a watched folder's playlist sees it: files still being written (or empty)
/// are left out of directory listings, so the expander never lists them; everything else is
/// the underlying file system's.
public struct SettledFileSystem: PlaylistFileSystem {
    public var base: any PlaylistFileSystem
    /// Absolute paths not to list (not ready: `FileSettling`).
    public var hidden: Set<String>

    public init(base: any PlaylistFileSystem = LocalFileSystem(), hidden: Set<String> = []) {
        self.base = base
        self.hidden = hidden
    }

    public func kind(ofItemAt path: String) -> FileKind? {
        hidden.contains(PathText.normalize(path)) ? nil : base.kind(ofItemAt: path)
    }

    public func smallText(atPath path: String) -> String? { base.smallText(atPath: path) }

    public func bytes(atPath path: String, offset: Int, count: Int) -> [UInt8] {
        hidden.contains(PathText.normalize(path)) ? [] : base.bytes(atPath: path, offset: offset, count: count)
    }

    public func fingerprint(atPath path: String) -> FileFingerprint? {
        hidden.contains(PathText.normalize(path)) ? nil : base.fingerprint(atPath: path)
    }

    public func isConfined(_ path: String, to root: String) -> Bool { base.isConfined(path, to: root) }

    public var knowsLinks: Bool { base.knowsLinks }

    public func entryKind(atPath path: String) -> EntryKind? {
        hidden.contains(PathText.normalize(path)) ? nil : base.entryKind(atPath: path)
    }

    public func resolvedPath(_ path: String) -> String? { base.resolvedPath(path) }

    public func unsettledFiles(under path: String) -> [String] {
        let folder = PathText.normalize(path)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return hidden.filter { $0.hasPrefix(prefix) }.sorted()
    }

    public func contentsOfDirectory(atPath path: String) throws(FileSystemError) -> [String] {
        let names = try base.contentsOfDirectory(atPath: path)
        guard !hidden.isEmpty else { return names }
        return names.filter { !hidden.contains(PathText.normalize(PathText.join(path, $0))) }
    }
}

/// Which folders the items' directories and globs depend on: the ones to watch for files
/// that arrive, leave or are replaced.
public enum WatchedFolders {
    /// Directory items (and file items that name a directory), and for a glob the folders its
    /// last component is matched in; for a playlist file (`PlaylistFile`), the folders it and its
    /// entries are in. URLs and plain files are not watched (a file item that
    /// appears is found by the next reload of kiosk.conf, as before). In item order, each once.
    public static func directories(of items: [ItemConfig], fileSystem: any PlaylistFileSystem = LocalFileSystem()) -> [String] {
        var found: [String] = []
        func add(_ path: String) {
            let path = PathText.normalize(path)
            if !found.contains(path) { found.append(path) }
        }
        for item in items {
            switch item.source {
            case .url, .card: continue
            // The sync thread hands over its switches itself; its store is never half-written.
            case .synced: continue
            case .directory(let path): add(path)
            // Its folders too: a file copied into a subfolder is seen like one at the top.
            case .tree(let path):
                add(path)
                for folder in MediaTree.folders(path, fileSystem: fileSystem) { add(folder) }
            case .file(let written):
                // As the expander finds it: written in another Unicode form or case (`NameSpelling`).
                let path = fileSystem.kind(ofItemAt: written) == nil
                    ? NameSpelling.onDisk(written, fileSystem: fileSystem) ?? written : written
                if fileSystem.kind(ofItemAt: path) == .directory { add(path) }
                // A playlist file's folder (an edit of it), and its entries' (a listed file that arrives).
                // Only those there now: this is asked again every second, and one that appears is added then.
                for folder in PlaylistFileFolders.shared.folders(of: path, fileSystem: fileSystem)
                where fileSystem.kind(ofItemAt: folder) == .directory { add(folder) }
            case .glob(let pattern):
                let parent = PathText.normalize(pattern + "/..")
                if parent.contains(where: { "*?[\\".contains($0) }) {
                    let expander = PlaylistExpander(fileSystem: fileSystem)
                    for match in expander.globMatches(parent) where fileSystem.kind(ofItemAt: match) == .directory { add(match) }
                } else {
                    add(parent)
                }
            }
        }
        return found
    }

    /// Whether a name in a watched folder can be media the expander would list: hidden names
    /// (rsync's `.name.XXXXXX` temporaries, macOS `._name` forks) and names without a media
    /// extension (`clip.mp4.part`, `.crdownload`) are not looked at.
    /// The path of `name` in `folder`, written as the expander writes it.
    public static func path(in folder: String, name: String) -> String {
        PathText.normalize(PathText.join(folder, name))
    }

    public static func isCandidate(name: String) -> Bool {
        !name.hasPrefix(".") && PlaylistExpander.mediaExtensions.contains(PathText.lowercasedExtension(name))
    }
}

/// The folders a playlist file item depends on (`PlaylistFileListing.folders`), kept until one
/// of the playlist files read for them changes or a path it found missing appears: the folder
/// watcher asks every second, and reading a list of 5,000 lines each time cost a tenth of a
/// core. An HLS stream's `.m3u8` (no folders) is kept too, by its version.
public final class PlaylistFileFolders: @unchecked Sendable {
    // Safe to share: `kept` is guarded by `lock`.
    public static let shared = PlaylistFileFolders()
    private struct Kept {
        var versions: [String: FileFingerprint]
        var missing: [String]
        var folders: [String]
    }
    private let lock = NSLock()
    private var kept: [String: Kept] = [:]

    public init() {}

    /// `path`'s folders; none when it is not a playlist file. Read again when a file read for
    /// them has another version, or none (a file system without fingerprints is read each time).
    public func folders(of path: String, fileSystem: any PlaylistFileSystem) -> [String] {
        guard PlaylistFile.isNamed(path) else { return [] }
        if let entry = lock.withLock({ kept[path] }),
           entry.versions.allSatisfy({ fileSystem.fingerprint(atPath: $0.key) == $0.value }),
           entry.missing.allSatisfy({ fileSystem.kind(ofItemAt: $0) == nil }) {
            return entry.folders
        }
        let listing = PlaylistExpander(fileSystem: fileSystem).playlistFile(path)
        let read = listing?.files ?? [path]
        var versions: [String: FileFingerprint] = [:]
        for file in read {
            guard let fingerprint = fileSystem.fingerprint(atPath: file) else { return listing?.folders ?? [] }
            versions[file] = fingerprint
        }
        let entry = Kept(versions: versions, missing: listing?.missing ?? [], folders: listing?.folders ?? [])
        lock.withLock {
            if kept.count >= 256, kept[path] == nil { kept.removeAll() }
            kept[path] = entry
        }
        return entry.folders
    }
}

/// What a new playlist changed against the old one, for the one log line a watched folder's
/// change gets: `watched folders: +b.mp4, -a.mp4 (3 entries)`.
public struct PlaylistDifference: Sendable, Equatable {
    public var added: [String] = []
    public var removed: [String] = []
    public var count = 0

    public init(from old: [PlaylistEntry], to new: [PlaylistEntry]) {
        let before = Set(old.map(\.media)), after = Set(new.map(\.media))
        added = Self.unique(new.map(\.media).filter { !before.contains($0) })
        removed = Self.unique(old.map(\.media).filter { !after.contains($0) })
        count = new.count
    }

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty }

    /// "+b.mp4, -a.mp4 (3 entries)"; paths, so two folders' same names are told apart.
    public var summary: String {
        let parts = added.map { "+" + $0 } + removed.map { "-" + $0 }
        let text = parts.isEmpty ? "the same files" : parts.joined(separator: ", ")
        return text + " (\(count) \(count == 1 ? "entry" : "entries"))"
    }

    private static func unique(_ media: [MediaReference]) -> [String] {
        var seen = Set<MediaReference>(), names: [String] = []
        for item in media where seen.insert(item).inserted { names.append(item.description) }
        return names
    }
}
