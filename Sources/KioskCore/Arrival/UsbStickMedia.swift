/// What each stick's folder plays (`UsbStickItems`: a playlist file at its top, else its media
/// files and its subfolders' in `MediaTree` order; junk and empty files left out), kept between
/// the stick watcher's looks, which come every second:
/// - a stick whose file system is read-only (kiosk mounts every stick so) cannot change while
///   it is plugged in: it is listed once per mount and at most every `readOnlyRelisting`
///   seconds, not walked twice a second (its empty files, then its tree: on a 5,000-file stick,
///   three system calls per name each time, through `ConfinedFileSystem`). The minute bounds
///   a swap the mount ID cannot tell: Linux gives a new mount the lowest free ID, so a stick
///   pulled and another mounted at the same place between two looks may get the same one;
/// - a writable one is listed at every look; its playlist file's expansion is kept until a
///   playlist file read for it (the top list or one it lists) changes or a file it named as
///   missing appears (the first 64 such names), and for at most `readOnlyRelisting` seconds (a
///   file arriving in a folder the list names, or past those 64); a list changed in the last
///   3 seconds is read again at the next look (a FAT file's time has a 2-second step, so a
///   second edit within it may keep its time and size);
/// - its empty files (still being written) are looked for once per look, and only when
///   something is expanded.
/// Each line about a folder (a bound reached, a bad line of its list) goes to `say` once per
/// plug: the caller keys them by folder and forgets them when the stick goes.
public struct UsbStickMedia {
    public let fileSystem: any PlaylistFileSystem
    /// The expansion of each writable stick's list, by the list's path.
    private var listExpansions: [String: KeptList] = [:]
    /// Read-only sticks' expansions, by folder, with the mount they were listed in and when.
    private var kept: [String: (mount: Int, listedAt: Double, expansion: PlaylistExpansion)] = [:]
    /// A read-only stick is listed again after this many seconds in one mount (see above).
    public static let readOnlyRelisting = 60.0

    public init(fileSystem: any PlaylistFileSystem = LocalFileSystem()) {
        self.fileSystem = fileSystem
    }

    /// The entries of `folders` (each carrying its folder's index as `itemIndex`). `readOnly`:
    /// the folders whose file system is read-only, each with its mount's ID (mountinfo's first
    /// field): those are listed as at their last look in that mount less than `readOnlyRelisting`
    /// seconds before `now` (the wall clock's Unix seconds: files' times are compared with it).
    public mutating func entries(in folders: [String], readOnly: [String: Int] = [:], now: Double,
                                 say: (_ line: String, _ folder: String) -> Void) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var lists: [String: KeptList] = [:]
        kept = kept.filter { folders.contains($0.key) }
        for (index, folder) in folders.enumerated() {
            let expansion: PlaylistExpansion
            if let mount = readOnly[folder], let known = kept[folder], known.mount == mount,
               now >= known.listedAt, now - known.listedAt < Self.readOnlyRelisting {
                expansion = known.expansion
            } else {
                expansion = expand(folder, lists: &lists, now: now, say: say)
                kept[folder] = readOnly[folder].map { ($0, now, expansion) }
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

    private mutating func expand(_ folder: String, lists: inout [String: KeptList], now: Double,
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
        if case .file(let list) = item.source, fileSystem.fingerprint(atPath: list) != nil {
            let stick = ConfinedFileSystem(base: fileSystem, root: folder)
            if let known = listExpansions[list], known.isCurrent(now: now, fileSystem: fileSystem, stick: stick) {
                expansion = known.expansion
                lists[list] = known
            } else {
                expansion = expand(item)
                lists[list] = KeptList(expansion, listedAt: now, fileSystem: fileSystem, now: now)
            }
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

/// A writable stick's list expansion and what it was read from (see `UsbStickMedia`).
struct KeptList {
    var expansion: PlaylistExpansion
    var listedAt: Double
    /// nil: not to be kept (a file read without a version, or changed within the last seconds).
    var versions: [String: FileFingerprint]?

    /// A file time this close to the look may hide a second change: not kept. Only this close:
    /// a FAT stick's times are its writer's local time, read as UTC, hours off either way.
    static let settling = 3.0

    init(_ expansion: PlaylistExpansion, listedAt: Double, fileSystem: any PlaylistFileSystem, now: Double) {
        self.expansion = expansion
        self.listedAt = listedAt
        var versions: [String: FileFingerprint] = [:]
        let near = { (time: Int64) in abs(Double(time) / 1e9 - now) < Self.settling }
        for file in expansion.playlistFilesRead {
            guard let version = fileSystem.fingerprint(atPath: file), !near(version.modified), !near(version.changed) else {
                self.versions = nil
                return
            }
            versions[file] = version
        }
        self.versions = versions.isEmpty ? nil : versions
    }

    /// Whether the expansion still says what the stick holds: every list read is as it was, no
    /// missing name has appeared on the stick (a folder, or a file with bytes: an empty one is
    /// left out as one still being copied), and it is less than `readOnlyRelisting` old.
    func isCurrent(now: Double, fileSystem: any PlaylistFileSystem, stick: ConfinedFileSystem) -> Bool {
        guard let versions, now >= listedAt, now - listedAt < UsbStickMedia.readOnlyRelisting else { return false }
        return versions.allSatisfy { fileSystem.fingerprint(atPath: $0.key) == $0.value }
            && expansion.missing.allSatisfy { path in
                switch stick.kind(ofItemAt: path) {
                case nil: true
                case .directory: false
                case .file: (stick.fingerprint(atPath: path)?.size ?? 0) == 0
                }
            }
    }
}

