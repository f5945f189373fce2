/// What each stick's folder plays (`UsbStickItems`: a playlist file at its top, else its media
/// files and its subfolders' in `MediaTree` order; junk and empty files left out), kept between
/// the stick watcher's looks, which come every second:
/// - a stick whose file system is read-only (kiosk mounts every stick so) cannot change while
///   it is plugged in: it is listed once per plug, not walked twice a second (its empty files,
///   then its tree: on a 5,000-file stick, three system calls per name each time, through
///   `ConfinedFileSystem`);
/// - a writable one is listed at every look, its list read again only when the list changed;
/// - its empty files (still being written) are looked for once per look, and only when
///   something is expanded.
/// Each line about a folder (a bound reached, a bad line of its list) goes to `say` once per
/// plug: the caller keys them by folder and forgets them when the stick goes.
public struct UsbStickMedia {
    public let fileSystem: any PlaylistFileSystem
    /// The expansion of each stick's list, by the list's version.
    private var listExpansions: [String: (FileFingerprint, PlaylistExpansion)] = [:]
    /// Read-only sticks' expansions, by folder, with the mount they were listed in.
    private var kept: [String: (mount: Int, expansion: PlaylistExpansion)] = [:]

    public init(fileSystem: any PlaylistFileSystem = LocalFileSystem()) {
        self.fileSystem = fileSystem
    }

    /// The entries of `folders` (each carrying its folder's index as `itemIndex`). `readOnly`:
    /// the folders whose file system is read-only, each with its mount's ID (mountinfo's first
    /// field, new at each mount): those are listed as at their first look in that mount.
    public mutating func entries(in folders: [String], readOnly: [String: Int] = [:],
                                 say: (_ line: String, _ folder: String) -> Void) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var lists: [String: (FileFingerprint, PlaylistExpansion)] = [:]
        kept = kept.filter { folders.contains($0.key) }
        for (index, folder) in folders.enumerated() {
            let expansion: PlaylistExpansion
            if let mount = readOnly[folder], let known = kept[folder], known.mount == mount {
                expansion = known.expansion
            } else {
                expansion = expand(folder, lists: &lists, say: say)
                kept[folder] = readOnly[folder].map { ($0, expansion) }
            }
            entries += expansion.entries.map { entry in
                var entry = entry
                entry.itemIndex = index
                return entry
            }
        }
        listExpansions = lists   // the lists of the writable sticks here now only
        return entries
    }

    /// The stick at `folder` is gone (or mounted again): listed afresh at its next look.
    public mutating func forget(_ folder: String) {
        kept[folder] = nil
    }

    private mutating func expand(_ folder: String, lists: inout [String: (FileFingerprint, PlaylistExpansion)],
                                 say: (String, String) -> Void) -> PlaylistExpansion {
        // Walked for empty files at most once, and only when something is expanded.
        var hidden: Set<String>?
        let expand = { [fileSystem] (item: ItemConfig) -> PlaylistExpansion in
            if hidden == nil { hidden = Self.emptyFiles(in: folder, fileSystem: fileSystem) }
            var expander = PlaylistExpander(fileSystem: SettledFileSystem(base: fileSystem, hidden: hidden ?? []))
            expander.confinement = folder   // a stick's list names the stick's files only
            return expander.expand([item])
        }
        let (item, note) = UsbStickItems.item(for: folder, fileSystem: fileSystem)
        if let note { say("USB: \(note)", folder) }
        var expansion: PlaylistExpansion
        if case .file(let list) = item.source, let version = fileSystem.fingerprint(atPath: list) {
            // A writable stick's list is read again when it changed, not at every look (a nested
            // list's change, or a listed file arriving, waits for the top list's).
            if let known = listExpansions[list], known.0 == version { expansion = known.1 } else { expansion = expand(item) }
            lists[list] = (version, expansion)
            if expansion.entries.isEmpty {
                for diagnostic in expansion.diagnostics { say("USB: \(diagnostic.message)", folder) }
                say("USB: playlist file '\(quotedForMessage(list))' gives nothing that plays: the stick's media files play instead",
                    folder)
                expansion = expand(ItemConfig(source: .tree(folder), location: item.location))
            }
        } else {
            expansion = expand(item)
        }
        for diagnostic in expansion.diagnostics where !expansion.entries.isEmpty { say("USB: \(diagnostic.message)", folder) }
        return expansion
    }

    /// The stick's empty files (one being copied on is empty at first): not listed.
    static func emptyFiles(in folder: String, fileSystem: any PlaylistFileSystem) -> Set<String> {
        let tree = MediaTree.list(folder, fileSystem: ConfinedFileSystem(base: fileSystem, root: folder)) {
            WatchedFolders.isCandidate(name: $0)
        }
        return Set(tree.files.filter { fileSystem.fingerprint(atPath: $0)?.size == 0 })
    }
}
