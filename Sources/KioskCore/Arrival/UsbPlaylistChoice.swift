/// Which list the loop plays while sticks come and go: the stick's media (in copy mode, the
/// copy folder's) instead of the configured playlist while there are any, the configured
/// playlist again when they are gone. Pure: the stick watcher hands in what it found and
/// sends the request this answers.
///
/// Both switches are `now`: a stick plugged in is what the person in front of the screen wants
/// to see (pi_video_looper replaces its playlist the same way), and a stick pulled out takes
/// the item playing with it: waiting for the seam would mean read errors until then.
public struct UsbPlaylistChoice: Sendable, Equatable {
    /// What the loop plays instead of the configured playlist; nil: the configured one.
    public private(set) var replacing: [PlaylistEntry]?

    public init() {}

    public var overridesConfigured: Bool { replacing != nil }

    /// `found`: the media on the mounted sticks (copy mode: in the copy folder), in order;
    /// `configured`: the playlist to go back to. The request to send, if any.
    public mutating func update(found: [PlaylistEntry], configured: [PlaylistEntry]) -> PlayerRequest? {
        if found.isEmpty {
            guard replacing != nil else { return nil }
            replacing = nil
            return .switchPlaylist(configured, when: .now)
        }
        if let replacing, replacing.map(\.media) == found.map(\.media) { return nil }
        replacing = found
        return .switchPlaylist(found, when: .now)
    }
}

/// Copy mode's plan for one stick: which files to copy into the copy folder, which are there
/// already, which do not fit, and which old copies go. Pure: the copier does the I/O.
public struct UsbCopyPlan: Sendable, Equatable {
    /// A file by name, size and modification time (whole seconds: FAT keeps two-second steps,
    /// and a copy gets its source's time, so equal times mean the same file).
    public struct File: Sendable, Equatable {
        public var name: String
        public var size: Int64
        public var modified: Int64
        public init(name: String, size: Int64, modified: Int64) {
            self.name = name
            self.size = size
            self.modified = modified
        }
    }

    public var copy: [File] = []
    /// On the stick and in the folder already, the same size and time: not copied again.
    public var unchanged: [String] = []
    /// Would leave less than `min_free` on the folder's file system: one line each.
    public var tooLarge: [(file: File, available: Int64)] = []
    /// Media files in the copy folder that the stick does not have: removed once every copy
    /// succeeded (copy mode mirrors the last stick, in kiosk's own folder only).
    public var stale: [String] = []

    /// `stick`: the media files at the stick's top; `folder`: the media files in the copy
    /// folder; `available`: bytes free there now; `minFree`: bytes to leave.
    public init(stick: [File], folder: [File], available: Int64, minFree: Int64) {
        var free = available
        let existing = Dictionary(folder.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for file in stick where file.size > 0 {
            if let there = existing[file.name], there.size == file.size, there.modified == file.modified {
                unchanged.append(file.name)
                continue
            }
            // The replaced copy's bytes come back only after the rename: not counted.
            if free - file.size < minFree {
                tooLarge.append((file, free))
                continue
            }
            free -= file.size
            copy.append(file)
        }
        let names = Set(stick.filter { $0.size > 0 }.map(\.name))
        stale = folder.map(\.name).filter { !names.contains($0) }
    }

    public static func == (lhs: UsbCopyPlan, rhs: UsbCopyPlan) -> Bool {
        lhs.copy == rhs.copy && lhs.unchanged == rhs.unchanged && lhs.stale == rhs.stale
            && lhs.tooLarge.map(\.file) == rhs.tooLarge.map(\.file) && lhs.tooLarge.map(\.available) == rhs.tooLarge.map(\.available)
    }

    /// The temporary name a copy is written under: hidden, so neither kiosk's expander nor a
    /// watched folder lists it half-written, and never a name the stick could bring.
    public static func temporaryName(for name: String) -> String { ".kiosk-copy." + name + ".tmp" }
}
