import Foundation

/// What an item naming a playlist file (`M3UPlaylist`) lists: its entries with their
/// `#EXTINF` titles and seconds, playlist files it names expanded in place (a directory named
/// there gives its media), and why a line gave nothing.
public struct PlaylistFileListing: Sendable, Equatable {
    public struct Listed: Sendable, Equatable {
        public var media: MediaReference
        public var title: String?
        public var seconds: Double?
    }

    public var entries: [Listed] = []
    /// One message per line that gave nothing (the file, the line, the reason).
    public var problems: [String] = []
    /// The folders the listing depends on (the playlist files' own, each listed file's, each
    /// listed directory), for the folder watcher: an edited playlist or a listed file that
    /// arrives is seen as a watched folder's change is.
    public var folders: [String] = []
    /// The playlist files read for it (the item's, then those it lists), so a reader may keep
    /// what it made of them until one changes (`PlaylistFileFolders`).
    public var files: [String] = []
}

extension PlaylistExpander {
    /// Entries listed through one item's playlist files, nested ones included (as a stick's tree).
    public static let playlistFileEntryLimit = MediaTree.maximumFiles
    /// Playlist files that list playlist files, this deep at most.
    public static let playlistFileDepthLimit = 8
    /// Bytes read of one playlist file (some 20,000 lines of long paths).
    public static let playlistFileByteLimit = 4 << 20

    /// The listing of `path` when it is a playlist file (by its name), nil when it is not one
    /// or is an HLS stream's playlist (a file item FFmpeg plays).
    public func playlistFile(_ path: String) -> PlaylistFileListing? {
        guard M3UPlaylist.isNamed(path), fileSystem.kind(ofItemAt: path) == .file else { return nil }
        let (bytes, cut) = playlistBytes(path)
        guard let playlist = M3UPlaylist.parse(bytes) else { return nil }
        var listing = PlaylistFileListing()
        if cut { listing.problems.append("playlist file '\(path)' is longer than 4 MiB: only the entries in its first 4 MiB play") }
        list(playlist, of: path, depth: 0, visiting: [PathText.normalize(path)], into: &listing)
        if listing.entries.isEmpty, listing.problems.isEmpty {
            listing.problems.append(bytes.isEmpty ? "playlist file '\(path)' is empty (or cannot be read); skipped"
                                                  : "playlist file '\(path)' lists no media (only # lines); skipped")
        }
        return listing
    }

    private func list(_ playlist: M3UPlaylist, of file: String, depth: Int, visiting: Set<String>,
                      into listing: inout PlaylistFileListing) {
        let folder = PathText.normalize(file + "/..")
        listing.addFolder(folder)
        listing.files.append(file)
        for entry in playlist.entries {
            guard listing.entries.count < Self.playlistFileEntryLimit else {
                listing.problems.append("playlist file '\(file)' line \(entry.line): \(Self.playlistFileEntryLimit) entries listed; "
                                        + "the rest of its lines are not read")
                return
            }
            let said = "playlist file '\(file)' line \(entry.line)"
            let path: String
            switch Self.resolvePlaylistLine(entry.location, in: folder, fileSystem: fileSystem) {
            case .url(let url):
                if let problem = SourceURLCheck.problem(in: url) {
                    listing.problems.append("\(said): the URL '\(NetworkURL.masked(url))' cannot be opened: \(problem); skipped")
                } else {
                    listing.add(.url(url), entry)
                }
                continue
            case .problem(let why):
                listing.problems.append("\(said): \(why); skipped")
                continue
            case .path(let resolved):
                path = resolved
            }
            switch fileSystem.kind(ofItemAt: path) {
            case nil:
                let parent = PathText.normalize(path + "/..")
                listing.addFolder(parent)
                let writing = fileSystem.unsettledFiles(under: parent).contains(PathText.normalize(path))
                listing.problems.append("\(said): file '\(path)' " + (writing ? "is still being written (or empty); played once settled"
                                                                               : "does not exist; skipped until it appears"))
            case .directory:
                listing.addFolder(path)
                let (media, problem) = mediaOf(.directory(path))
                for reference in media { listing.add(reference, M3UPlaylist.Entry(location: entry.location, line: entry.line)) }
                if let problem { listing.problems.append("\(said): \(problem)") }
            case .file:
                listing.addFolder(PathText.normalize(path + "/.."))
                guard M3UPlaylist.isNamed(path) else {
                    listing.add(.file(path), entry)
                    continue
                }
                let normalized = PathText.normalize(path)
                guard !visiting.contains(normalized) else {
                    listing.problems.append("\(said): '\(path)' is a playlist file that lists this one (a loop); skipped")
                    continue
                }
                guard depth + 1 < Self.playlistFileDepthLimit else {
                    listing.problems.append("\(said): '\(path)' is the \(Self.playlistFileDepthLimit + 1)th playlist file "
                                            + "in a chain of them; skipped (at most \(Self.playlistFileDepthLimit) deep)")
                    continue
                }
                let (bytes, cut) = playlistBytes(path)
                guard let nested = M3UPlaylist.parse(bytes) else {
                    listing.add(.file(path), entry)   // an HLS stream's playlist: FFmpeg plays it
                    continue
                }
                if cut { listing.problems.append("playlist file '\(path)' is longer than 4 MiB: only the entries in its first 4 MiB play") }
                list(nested, of: path, depth: depth + 1, visiting: visiting.union([normalized]), into: &listing)
            }
        }
    }

    /// Up to `playlistFileByteLimit` bytes, read in pieces; when cut there, the line cut off is
    /// left out.
    private func playlistBytes(_ path: String) -> (bytes: [UInt8], cut: Bool) {
        var bytes: [UInt8] = []
        let piece = 64 << 10
        while bytes.count < Self.playlistFileByteLimit {
            let read = fileSystem.bytes(atPath: path, offset: bytes.count, count: piece)
            bytes += read
            if read.count < piece { return (bytes, false) }
        }
        if fileSystem.bytes(atPath: path, offset: bytes.count, count: 1).isEmpty { return (bytes, false) }
        if let lastNewline = bytes.lastIndex(of: 0x0A) { bytes.removeSubrange((lastNewline + 1)...) }
        return (bytes, true)
    }

    /// What one line names, as `ItemSource.classify` reads kiosk.conf's items, with what other
    /// systems' playlists hold: `file://` URLs with %-escapes (VLC's), Windows' backslashes in
    /// relative paths (`Media\clip.mp4`); Windows' absolute paths cannot be found here.
    /// No globs: a line is a name, and `[` or `*` is part of it.
    enum PlaylistLine: Equatable {
        case path(String)
        case url(String)
        case problem(String)
    }

    static func resolvePlaylistLine(_ location: String, in folder: String, fileSystem: any PlaylistFileSystem) -> PlaylistLine {
        if let scheme = ItemSource.urlScheme(of: location) {
            guard scheme == "file" else { return .url(location) }
            var rest = Substring(location.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            guard rest.hasPrefix("/") else {
                return .problem("'\(location)' names a file on another computer (a file:// URL with a host)")
            }
            let path = String(rest).removingPercentEncoding ?? String(rest)
            if isWindowsAbsolute(String(path.dropFirst())) { return .problem(windowsPath(location)) }
            return .path(PathText.normalize(path))
        }
        if isWindowsAbsolute(location) { return .problem(windowsPath(location)) }
        let literal = PathText.resolve(location, against: folder)
        guard location.contains("\\"), fileSystem.kind(ofItemAt: literal) == nil else { return .path(literal) }
        return .path(PathText.resolve(location.replacingOccurrences(of: "\\", with: "/"), against: folder))
    }

    /// `C:\Media\a.mp4`, `C:/Media/a.mp4`, `\\server\share\a.mp4`.
    static func isWindowsAbsolute(_ text: String) -> Bool {
        if text.hasPrefix("\\\\") { return true }
        let characters = Array(text.prefix(3))
        return characters.count == 3 && characters[0].isASCII && characters[0].isLetter && characters[1] == ":"
            && (characters[2] == "\\" || characters[2] == "/")
    }

    private static func windowsPath(_ location: String) -> String {
        "'\(location)' is a Windows path, not one on this box: write the names relative to the playlist file "
            + "(Media\\clip.mp4 or Media/clip.mp4) and keep the files beside it"
    }
}

extension PlaylistFileListing {
    mutating func add(_ media: MediaReference, _ entry: M3UPlaylist.Entry) {
        entries.append(Listed(media: media, title: entry.title, seconds: entry.seconds))
    }

    mutating func addFolder(_ folder: String) {
        if !folders.contains(folder) { folders.append(folder) }
    }
}

extension PlaylistExpansion {
    /// Lines of one item's playlist files said one by one; past these, counted in one more.
    static let playlistFileProblemsSaid = 10

    /// The entries of `item`'s playlist file: `#EXTINF`'s title over the item's (it names this
    /// entry, the item's names all of them); its seconds as a picture's `duration` unless the
    /// item sets one (a video plays its own length, a stream until it ends).
    mutating func add(_ listing: PlaylistFileListing, of item: ItemConfig, at index: Int, expander: PlaylistExpander) {
        for listed in listing.entries {
            var entry = PlaylistEntry(media: listed.media, item: item, itemIndex: index)
            if case .file(let path) = listed.media, let kind = expander.pictureByContent(path) {
                entry.isStillImage = kind == .still
                entry.isAnimatedPicture = kind == .animation
            }
            if let title = listed.title { entry.title = title }
            if let seconds = listed.seconds, item.duration == nil, entry.isStillImage || entry.isAnimatedPicture {
                entry.item.duration = MediaTime(seconds: seconds)
            }
            entries.append(entry)
        }
        let said = listing.problems.prefix(Self.playlistFileProblemsSaid)
        diagnostics += said.map { ConfigDiagnostic(location: item.location, message: $0) }
        if listing.problems.count > said.count {
            diagnostics.append(ConfigDiagnostic(location: item.location, message:
                "\(listing.problems.count - said.count) more lines of playlist file '\(item.source)' (or of the playlist files it lists) "
                + "gave nothing; skipped"))
        }
    }
}
