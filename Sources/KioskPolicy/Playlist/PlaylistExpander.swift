#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one playlist entry plays: a local file or a URL. Two entries are the same media
/// when these are equal (live reload keeps the current item by this).
public enum MediaReference: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case url(String)
    /// A card kiosk draws: nothing to open.
    case card(TextCard)

    public var description: String {
        switch self {
        case .file(let path): return path
        case .url(let url): return url
        case .card(let card): return card.name
        }
    }
}

/// One thing to play, after directories and globs were expanded.
public struct PlaylistEntry: Sendable, Equatable {
    public var media: MediaReference
    /// The item it came from, with its options (gravity, volume, trim, loop count...).
    public var item: ItemConfig
    /// Position of that item in the config's `items` (several entries share it for a directory).
    public var itemIndex: Int
    /// The item's title, else the file name (the whole URL for streams).
    public var title: String
    /// A picture (`stillImageExtensions`; a card; from the expander, a file that is one by its
    /// bytes, and a GIF of one picture): shown for `item.duration` or `playback.image_duration`.
    public var isStillImage: Bool
    /// An animation in a picture's format, by its name (`animatedPictureExtensions`) or, from
    /// the expander, by its bytes (an animated GIF named `asset_1234`): looped for `duration`.
    public var isAnimatedPicture: Bool

    public init(media: MediaReference, item: ItemConfig, itemIndex: Int) {
        self.media = media
        self.item = item
        self.itemIndex = itemIndex
        switch media {
        case .file(let path):
            title = item.title ?? PathText.lastComponent(path)
            isStillImage = PlaylistExpander.stillImageExtensions.contains(PathText.lowercasedExtension(path))
            isAnimatedPicture = Self.animatedPictureExtensions.contains(PathText.lowercasedExtension(path))
        case .url(let url):
            title = item.title ?? NetworkURL.masked(url)   // titles reach logs and events
            // `https://host/menu.png?v=3` is a picture FFmpeg reads (libheif reads files only).
            let name = NetworkURL.pathExtension(of: url)
            isStillImage = PlaylistExpander.stillImageExtensions.subtracting(PlaylistExpander.heifImageExtensions).contains(name)
            isAnimatedPicture = false   // a network item's `duration` is a live stream's
        case .card(let card):
            title = item.title ?? card.name
            isStillImage = true
            isAnimatedPicture = false
        }
    }

    /// Plays of this entry in a row before the playlist moves on.
    public var repeatCount: Int { max(1, item.loopCount) }
}

/// The entries of a playlist and what could not be expanded (each with the item's position).
public struct PlaylistExpansion: Sendable, Equatable {
    public var entries: [PlaylistEntry] = []
    public var diagnostics: [ConfigDiagnostic] = []
    /// The playlist files read for it, and up to `PlaylistFileListing.missingLimit` paths they
    /// named that were not there (`PlaylistFileListing.files`, `missing`): what a reader keeps
    /// an expansion by until one of them changes or appears (`UsbStickMedia`).
    public var playlistFilesRead: [String] = []
    public var missing: [String] = []
    public init() {}
}

/// Turns config items into entries: a directory gives its media files in natural name order,
/// a glob its matching media files. Nothing here is fatal: a missing file, an empty directory or
/// a glob without matches is reported and skipped, so a half-filled USB stick still plays.
/// Hidden files (".name", such as macOS "._clip.mp4" forks on FAT sticks) are never listed.
public struct PlaylistExpander: Sendable {
    /// Containers FFmpeg reads, as cameras, phones, editors and disc rips name them (.mts and
    /// .m2t: AVCHD and HDV camcorders; .3gp: phones; .mxf: broadcast; .vob: DVDs).
    public static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mov", "mkv", "webm", "avi", "ts", "m2ts", "mts", "m2t", "mpg", "mpeg", "m2v", "vob", "ogv", "flv",
        "f4v", "wmv", "asf", "3gp", "3g2", "mxf", "divx", "gif",
    ]
    /// Phone photos FFmpeg 5.1 cannot open: libheif decodes them (KioskMedia's `HeifStill`).
    public static let heifImageExtensions: Set<String> = ["heic", "heif", "avif"]
    /// FFmpeg's image readers, a still each (a `.tif` was played as a one-frame video: shown for
    /// a frame, not `image_duration`).
    /// (.jfif is what a browser on Windows saves a JPEG as.)
    public static let stillImageExtensions: Set<String> = heifImageExtensions.union(["png", "jpg", "jpeg", "jfif", "jpe", "bmp", "webp",
                                                                                    "tif", "tiff", "jxl"])
    /// Whether `path` is named as a HEIF still (any letter case): .heic, .heif, .avif.
    public static func hasHeifExtension(_ path: String) -> Bool {
        heifImageExtensions.contains(PathText.lowercasedExtension(path))
    }
    public static let mediaExtensions: Set<String> = videoExtensions.union(stillImageExtensions)
    /// What a music bed (`audio_track`) lists from directories and globs.
    public static let soundExtensions: Set<String> = [
        "mp3", "m4a", "aac", "flac", "wav", "ogg", "oga", "opus", "mka", "aif", "aiff", "wma", "ac3",
    ]

    public var fileSystem: any PlaylistFileSystem
    /// The file name endings directories and globs list: media for items, sound for a bed.
    public var extensions: Set<String>
    /// The folder a playlist file's entries must be in, nil for anywhere: a USB stick's list is
    /// a passer-by's file, so it names the stick's own files only, no other file of the box
    /// (`/etc/shadow`, `/dev/sda`, a FIFO) and no URL (a request into the shop's network).
    public var confinement: String?

    public init(fileSystem: any PlaylistFileSystem = LocalFileSystem(), extensions: Set<String> = mediaExtensions) {
        self.fileSystem = fileSystem
        self.extensions = extensions
    }

    public func expand(_ items: [ItemConfig]) -> PlaylistExpansion {
        var expansion = PlaylistExpansion()
        for (index, written) in items.enumerated() {
            var item = written
            // Written in another Unicode form or letter case than the disk's (`NameSpelling`):
            // as the disk spells it, so that `Show.M3U` for `show.m3u` is read as a list too.
            if case .file(let path) = item.source, fileSystem.kind(ofItemAt: path) == nil,
               let spelled = NameSpelling.onDisk(path, fileSystem: listingFileSystem) {
                item.source = .file(spelled)
            }
            if case .file(let path) = item.source, let listing = playlistFile(path) {
                expansion.add(listing, of: item, at: index, expander: self)
                continue
            }
            if let root = confinement, case .file(let path) = item.source, PlaylistFile.isNamed(path) {
                // An HLS stream's playlist (no listing): its segments could be anywhere.
                expansion.diagnostics.append(ConfigDiagnostic(location: item.location, message:
                    "'\(quotedForMessage(path))' is an HLS stream's playlist; a list in \(root) plays files there only; skipped"))
                continue
            }
            let (media, problem) = mediaOf(item.source)
            expansion.entries += media.map { reference in
                var entry = entry(playing: reference, of: item, at: index)
                if case .synced = item.source, case .file(let path) = reference,
                   let title = syncedTitle(of: path) { entry.title = title }
                return entry
            }
            if let problem {
                expansion.diagnostics.append(ConfigDiagnostic(location: item.location, message: problem))
            }
        }
        return expansion
    }

    /// What folder and tree listings see: under `confinement`, only what is inside it for real
    /// (`ConfinedFileSystem`: a stick's `w.mp4 -> /dev/sda` is not played, its `all -> /` not walked).
    var listingFileSystem: any PlaylistFileSystem {
        guard let root = confinement else { return fileSystem }
        return ConfinedFileSystem(base: fileSystem, root: root)
    }

    /// The media an item names, and a message when it names none.
    func mediaOf(_ source: ItemSource) -> ([MediaReference], String?) {
        switch source {
        case .url(let url):
            return ([.url(url)], nil)
        case .card(let card):
            return ([.card(card)], nil)
        case .file(let path):
            switch fileSystem.kind(ofItemAt: path) {
            case .file: return ([.file(path)], nil)
            case .directory: return mediaOf(.directory(path))
            // `expand` has looked for it as the disk spells it (`NameSpelling`).
            case nil: return ([], "file '\(path)' does not exist; skipped until it appears")
            }
        case .directory(let path):
            guard fileSystem.kind(ofItemAt: path) == .directory else {
                return ([], "directory '\(path)' does not exist; skipped until it appears")
            }
            let names: [String]
            do { names = try fileSystem.contentsOfDirectory(atPath: path) } catch {
                return ([], "cannot list directory '\(path)': \(error); skipped")
            }
            let listing = listingFileSystem   // one view for the folder, its real root resolved once
            let files = NaturalOrder.sorted(names.filter(isMediaName))
                .map { PathText.join(path, $0) }
                .filter { listing.kind(ofItemAt: $0) == .file }
            guard !files.isEmpty else {
                let waiting = fileSystem.unsettledFiles(under: path).filter { PathText.normalize($0 + "/..") == PathText.normalize(path) }
                if let notReady = Self.notReady(waiting, in: path) { return ([], notReady) }
                return ([], "directory '\(path)' holds no media files; expected files ending in "
                        + extensions.sorted().joined(separator: ", ") + "; skipped")
            }
            return (files.map(MediaReference.file), nil)
        case .tree(let path):
            guard fileSystem.kind(ofItemAt: path) == .directory else {
                return ([], "directory '\(path)' does not exist; skipped until it appears")
            }
            let tree = MediaTree.list(path, fileSystem: listingFileSystem, isMedia: isMediaName)
            guard !tree.files.isEmpty else {
                if let notReady = Self.notReady(fileSystem.unsettledFiles(under: path), in: path) { return ([], notReady) }
                return ([], "'\(path)' holds no media files, in its folders either; skipped")
            }
            return (tree.files.map(MediaReference.file), tree.limitReached)
        case .synced(let store):
            return syncedMedia(store)
        case .glob(let pattern):
            let files = globMatches(pattern).filter { isMediaName(PathText.lastComponent($0)) && fileSystem.kind(ofItemAt: $0) == .file }
            guard !files.isEmpty else { return ([], "'\(pattern)' matches no media files; skipped") }
            return (files.map(MediaReference.file), nil)
        }
    }

    /// Why a folder whose only media are not ready lists nothing (a copy under way is not an
    /// empty folder); nil when nothing waits.
    static func notReady(_ waiting: [String], in path: String) -> String? {
        guard let first = waiting.first else { return nil }
        let folder = PathText.normalize(path)
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let name = first.hasPrefix(prefix) ? String(first.dropFirst(prefix.count)) : PathText.lastComponent(first)
        let more = waiting.count > 1 ? " and \(waiting.count - 1) more are" : " is"
        return "'\(path)' has no media file ready yet: '\(name)'\(more) still being written (or empty); played once settled"
    }

    /// The files of the store's `current` set: one folder per file, in manifest order (the set's
    /// `.order`), holding it under its manifest name (so titles are the names).
    func syncedMedia(_ store: String) -> ([MediaReference], String?) {
        let current = SyncStoreLayout(directory: store).current
        guard fileSystem.kind(ofItemAt: current) == .directory,
              let slots = try? fileSystem.contentsOfDirectory(atPath: current) else {
            return ([], "no synced set in '\(store)' yet; skipped until a sync completes")
        }
        var files: [String] = []
        for slot in Self.ordered(slots.filter { !$0.hasPrefix(".") }, by: orderLines(in: current)) {
            let folder = PathText.join(current, slot)
            guard let names = try? fileSystem.contentsOfDirectory(atPath: folder) else { continue }
            files += names.filter(isMediaName).sorted().map { PathText.join(folder, $0) }
        }
        guard !files.isEmpty else { return ([], "the synced set in '\(store)' holds no media files; skipped") }
        return (files.map(MediaReference.file), nil)
    }

    /// The lines of a set's `.order` (nil without one: a set made before it), read in pieces up
    /// to 4 MiB (16,000 names of 255 bytes); what a cut-off last line holds is left out.
    func orderLines(in set: String) -> [String]? {
        let path = PathText.join(set, SyncStoreLayout.orderFileName)
        var bytes: [UInt8] = []
        while bytes.count < 4 << 20 {
            let piece = fileSystem.bytes(atPath: path, offset: bytes.count, count: 64 << 10)
            bytes += piece
            if piece.count < 64 << 10 { break }
        }
        guard !bytes.isEmpty else { return nil }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()   // after the last newline: empty, or a line cut off
        return lines.map(String.init)
    }

    /// The set's folders in the order file's order; folders it does not name (none, unless the
    /// set was touched by hand) after them in natural order, as all are without an order file.
    static func ordered(_ slots: [String], by order: [String]?) -> [String] {
        let present = Set(slots)
        var seen = Set<String>()
        let named = (order ?? []).filter { present.contains($0) && seen.insert($0).inserted }
        return named + NaturalOrder.sorted(slots.filter { !seen.contains($0) })
    }

    /// A synced file's title from its manifest (`.title` beside it in its slot folder); it wins
    /// over the entry's `title`, which is one for all the set's files.
    func syncedTitle(of path: String) -> String? {
        let slot = PathText.normalize(path + "/..")
        guard let text = fileSystem.smallText(atPath: PathText.join(slot, SyncStoreLayout.titleFileName)) else { return nil }
        let title = text.trimmingWhitespace()
        return title.isEmpty ? nil : title
    }

    private func isMediaName(_ name: String) -> Bool {
        !name.hasPrefix(".") && extensions.contains(PathText.lowercasedExtension(name))
    }

    /// fnmatch(3) one path component at a time, through `fileSystem`: "*" and "?" do not
    /// cross "/" and do not match a leading "." (FNM_PERIOD), as in the shell. Natural order.
    package func globMatches(_ pattern: String) -> [String] {
        let isAbsolute = pattern.hasPrefix("/")
        var prefixes = [isAbsolute ? "/" : "."]
        let components = pattern.split(separator: "/").map(String.init)
        for (position, component) in components.enumerated() {
            let isLast = position == components.count - 1
            var next: [String] = []
            for prefix in prefixes {
                if !component.contains(where: { "*?[\\".contains($0) }) {
                    let path = PathText.join(prefix, component)
                    if isLast || fileSystem.kind(ofItemAt: path) == .directory { next.append(path) }
                    continue
                }
                guard let names = try? fileSystem.contentsOfDirectory(atPath: prefix) else { continue }
                for name in NaturalOrder.sorted(names) where Self.nameMatches(component, name) {
                    let path = PathText.join(prefix, name)
                    if isLast || fileSystem.kind(ofItemAt: path) == .directory { next.append(path) }
                }
            }
            prefixes = next
        }
        return prefixes.map(PathText.normalize)
    }

    /// fnmatch(3) of one name against one pattern component.
    static func nameMatches(_ pattern: String, _ name: String) -> Bool {
        pattern.withCString { p in name.withCString { n in systemFnmatch(p, n, FNM_PERIOD) == 0 } }
    }
}

#if canImport(Glibc)
private let systemFnmatch = Glibc.fnmatch
#elseif canImport(Darwin)
private let systemFnmatch = Darwin.fnmatch
#endif
