/// The media files of a folder and its subfolders (a USB stick sorted into `Lunch/menu.mp4`):
/// depth first, each folder's names in natural order with files and folders side by side, so
/// the order is the natural order of the path (`a.mp4`, `B.MP4`, `Folder/c.jpg`,
/// `Folder/Sub/f.mkv`). Junk folders are not entered (hidden ones, Windows' `System Volume
/// Information` and `$RECYCLE.BIN`, macOS' `.Trashes` and `.fseventsd`); depth and count are
/// bounded, and reaching a bound is said in one line (a link loop or a backup drive stops there).
public struct MediaTree: Sendable, Equatable {
    /// Paths of the media files found, in play order.
    public var files: [String] = []
    /// The one line when a bound was reached (what was found up to it plays).
    public var limitReached: String?

    /// Folders below the root entered at most this deep (the root's own files are depth 0).
    public static let maximumDepth = 8
    /// At most this many files are listed.
    public static let maximumFiles = 5000
    /// Folder names never entered, compared without regard to case (FAT keeps the case it was
    /// given; Windows writes `System Volume Information`, some tools `SYSTEM~1`).
    public static let junkFolders: Set<String> = ["system volume information", "$recycle.bin", "recycler", "found.000", "lost+found"]

    public init(files: [String] = [], limitReached: String? = nil) {
        self.files = files
        self.limitReached = limitReached
    }

    /// The folders below `root` that `list` enters (to watch them), within the same bounds.
    public static func folders(_ root: String, fileSystem: any PlaylistFileSystem, maximumDepth: Int = maximumDepth) -> [String] {
        var found: [String] = []
        func walk(_ folder: String, depth: Int) {
            guard depth < maximumDepth, found.count < maximumFiles,
                  let names = try? fileSystem.contentsOfDirectory(atPath: folder) else { return }
            for name in NaturalOrder.sorted(names) where !name.hasPrefix(".") && !junkFolders.contains(name.lowercased()) {
                let path = PathText.join(folder, name)
                guard fileSystem.kind(ofItemAt: path) == .directory else { continue }
                found.append(path)
                walk(path, depth: depth + 1)
            }
        }
        walk(root, depth: 0)
        return found
    }

    /// Lists `root` through `fileSystem`; `isMedia` says which names are media files.
    public static func list(_ root: String, fileSystem: any PlaylistFileSystem, isMedia: (String) -> Bool,
                            maximumDepth: Int = maximumDepth, maximumFiles: Int = maximumFiles) -> MediaTree {
        var tree = MediaTree()
        var full = false
        func walk(_ folder: String, depth: Int) {
            guard !full, let names = try? fileSystem.contentsOfDirectory(atPath: folder) else { return }
            for name in NaturalOrder.sorted(names) where !name.hasPrefix(".") {
                guard !full else { return }
                let path = PathText.join(folder, name)
                switch fileSystem.kind(ofItemAt: path) {
                case .file?:
                    guard isMedia(name) else { continue }
                    guard tree.files.count < maximumFiles else {
                        tree.limitReached = "\(root): more than \(maximumFiles) media files; the first \(maximumFiles) play"
                        full = true
                        return
                    }
                    tree.files.append(path)
                case .directory?:
                    guard !junkFolders.contains(name.lowercased()) else { continue }
                    guard depth < maximumDepth else {
                        // Said once (the first such folder); the rest of the tree is listed.
                        if tree.limitReached == nil {
                            tree.limitReached = "\(root): folders deeper than \(maximumDepth) levels (\(path)) are not looked into"
                        }
                        continue
                    }
                    walk(path, depth: depth + 1)
                case nil:
                    continue
                }
            }
        }
        walk(root, depth: 0)
        return tree
    }
}
