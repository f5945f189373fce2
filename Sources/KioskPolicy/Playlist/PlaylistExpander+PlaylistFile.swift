import Foundation

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
        guard PlaylistFile.isNamed(path), fileSystem.kind(ofItemAt: path) == .file else { return nil }
        var listing = PlaylistFileListing()
        guard let playlist = read(path, into: &listing) else { return nil }
        list(playlist, of: path, depth: 0, visiting: [PathText.normalize(path)], into: &listing)
        if listing.entries.isEmpty, listing.problems.isEmpty {
            let empty = fileSystem.bytes(atPath: path, offset: 0, count: 1).isEmpty
            listing.say("playlist file '\(quotedForMessage(path))' "
                        + (empty ? "is empty (or cannot be read); skipped" : "lists no media (\(Self.nothingListed[playlist.format]!)); skipped"))
        }
        return listing
    }

    /// What a playlist file that lists no media holds, by its format.
    private static let nothingListed: [PlaylistFile.Format: String] = [
        .m3u: "only # lines", .pls: "no File1= lines", .xspf: "no <track> in its <trackList>", .wpl: "no <media> in its <body>",
    ]

    /// The playlist file at `path`, read once per listing (nil: an HLS stream's playlist).
    private func read(_ path: String, into listing: inout PlaylistFileListing) -> PlaylistFile? {
        let key = PathText.normalize(path)
        if let known = listing.parsed[key] { return known }
        let (bytes, cut) = playlistBytes(path)
        let playlist = PlaylistFile.format(of: path).flatMap { PlaylistFile.parse(bytes, as: $0) }
        listing.parsed[key] = playlist
        listing.files.append(path)
        if cut, playlist != nil {
            listing.say("playlist file '\(quotedForMessage(path))' is longer than 4 MiB: only the entries in its first 4 MiB play")
        }
        return playlist
    }

    private func list(_ playlist: PlaylistFile, of file: String, depth: Int, visiting: Set<String>,
                      into listing: inout PlaylistFileListing) {
        let folder = PathText.normalize(file + "/..")
        listing.addFolder(folder)
        let shownFile = quotedForMessage(file)
        if let problem = playlist.problem { listing.say("playlist file '\(shownFile)': \(problem); skipped") }
        // An element that names nothing is said in its place among the entries' messages.
        var skipped = playlist.skipped[...]
        // Each is a line looked at: a file listed 50,000 times, of 20,000 tracks naming nothing, is bounded too.
        let saySkipped = { (before: Int, listing: inout PlaylistFileListing) in
            while !listing.stopped, let next = skipped.first, next.line < before {
                skipped.removeFirst()
                listing.linesLooked += 1
                guard listing.linesLooked <= PlaylistFileListing.lineLimit else {
                    listing.stop("playlist file '\(shownFile)' \(playlist.place(next.line)): \(PlaylistFileListing.lineLimit) lines "
                                 + "listed; the rest are not read")
                    return
                }
                listing.say("playlist file '\(shownFile)' \(playlist.place(next.line)): \(next.why); skipped")
            }
        }
        defer { saySkipped(Int.max, &listing) }
        let spelling = listingFileSystem   // where a name is looked for as the disk spells it
        for entry in playlist.entries {
            saySkipped(entry.line, &listing)
            if listing.stopped { return }
            listing.linesLooked += 1
            guard listing.entries.count < Self.playlistFileEntryLimit, listing.linesLooked <= PlaylistFileListing.lineLimit else {
                listing.stop("playlist file '\(shownFile)' \(playlist.place(entry.line)): \(Self.playlistFileEntryLimit) entries or "
                             + "\(PlaylistFileListing.lineLimit) lines listed; the rest are not read")
                return
            }
            let said = "playlist file '\(shownFile)' \(playlist.place(entry.line))"
            var path: String
            switch Self.resolvePlaylistLine(entry.location, in: folder, isURI: entry.isURI, fileSystem: fileSystem) {
            case .url(let url):
                if let root = confinement {
                    listing.say("\(said): '\(quotedForMessage(NetworkURL.masked(url)))' is a URL; a list in \(root) "
                                + "plays files there only; skipped")
                } else if let problem = SourceURLCheck.problem(in: url) {
                    listing.say("\(said): the URL '\(quotedForMessage(NetworkURL.masked(url)))' cannot be opened: \(problem); skipped")
                } else {
                    listing.add(.url(url), entry)
                }
                continue
            case .problem(let why):
                listing.say("\(said): \(why); skipped")
                continue
            case .path(let resolved):
                path = resolved
            }
            // Not there by its bytes: as the disk spells it (another Unicode form or letter case),
            // for the first names missing only (a hostile list of 50,000 costs 64 lookups, each
            // folder listed once), and on a stick through its confined view (no link out listed).
            if listing.respellingsLeft > 0, confinement.map({ PathText.isInside(path, $0) }) ?? true,
               fileSystem.kind(ofItemAt: path) == nil {
                listing.respellingsLeft -= 1
                if let spelled = NameSpelling.onDisk(path, fileSystem: spelling, folders: &listing.folderNames) { path = spelled }
            }
            if let root = confinement {
                let exists = fileSystem.kind(ofItemAt: path) != nil
                if !(exists ? fileSystem.isConfined(path, to: root) : PathText.isInside(path, root)) {
                    // A name that exists on this box too (`/home/me/a.mp4`) is looked for on the stick.
                    guard exists, case .path(let beside)? = Self.foundBeside(path, in: folder, fileSystem),
                          fileSystem.isConfined(beside, to: root) else {
                        listing.say("\(said): '\(quotedForMessage(path))' is not a file in \(root); a list there plays files "
                                    + "there only; skipped")
                        continue
                    }
                    path = beside
                }
            }
            let shownPath = quotedForMessage(path)
            switch fileSystem.kind(ofItemAt: path) {
            case nil:
                let parent = PathText.normalize(path + "/..")
                // Watched as the disk spells it (`Café/` written composed, there decomposed), so
                // that the file copied into it is seen.
                if listing.respellingsLeft > 0, spelling.kind(ofItemAt: parent) == nil,
                   let spelled = NameSpelling.onDisk(parent, fileSystem: spelling, folders: &listing.folderNames) {
                    listing.addFolder(spelled)
                }
                listing.addFolder(parent)
                listing.addMissing(path)
                let writing = fileSystem.unsettledFiles(under: parent).contains(PathText.normalize(path))
                listing.say("\(said): file '\(shownPath)' " + (writing ? "is still being written (or empty); played once settled"
                                                                     : "does not exist; skipped until it appears"))
            case .directory:
                listing.addFolder(path)
                let (media, problem) = mediaOf(.directory(path))
                for reference in media { listing.add(reference, PlaylistFile.Entry(location: entry.location, line: entry.line)) }
                if let problem { listing.say("\(said): \(problem)") }
            case .file:
                listing.addFolder(PathText.normalize(path + "/.."))
                guard PlaylistFile.isNamed(path) else {
                    listing.add(.file(path), entry)
                    continue
                }
                let normalized = PathText.normalize(path)
                guard !visiting.contains(normalized) else {
                    listing.say("\(said): '\(shownPath)' is a playlist file that lists this one (a loop); skipped")
                    continue
                }
                guard depth + 1 < Self.playlistFileDepthLimit else {
                    listing.say("\(said): '\(shownPath)' is the \(Self.playlistFileDepthLimit + 1)th playlist file "
                                + "in a chain of them; skipped (at most \(Self.playlistFileDepthLimit) deep)")
                    continue
                }
                guard listing.parsed[normalized] != nil || listing.files.count < PlaylistFileListing.fileLimit else {
                    listing.stop("\(said): \(PlaylistFileListing.fileLimit) playlist files read for this item; the rest are not read")
                    return
                }
                guard let nested = read(path, into: &listing) else {
                    if let root = confinement {   // its segments could be anywhere
                        listing.say("\(said): '\(shownPath)' is an HLS stream's playlist; a list in \(root) plays files there only; skipped")
                        continue
                    }
                    listing.add(.file(path), entry)   // an HLS stream's playlist: FFmpeg plays it
                    continue
                }
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
        if let lastBreak = bytes.lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) { bytes.removeSubrange((lastBreak + 1)...) }
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

    /// `isURI`: the line is a URI reference (XSPF's `<location>`), so a relative one is
    /// %-decoded as a `file://` URL's path is (`My%20Media/a.mp4`).
    static func resolvePlaylistLine(_ location: String, in folder: String, isURI: Bool = false,
                                    fileSystem: any PlaylistFileSystem) -> PlaylistLine {
        let windows = { (written: String) in foundBeside(written, in: folder, fileSystem) ?? .problem(windowsPath(location)) }
        if let scheme = ItemSource.urlScheme(of: location) {
            guard scheme == "file" else { return .url(location) }
            var rest = Substring(location.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            if isWindowsAbsolute(String(rest)) { return windows(String(rest)) }
            guard rest.hasPrefix("/") else {
                return .problem("'\(quotedForMessage(location))' names a file on another computer (a file:// URL with a host)")
            }
            let path = String(rest).removingPercentEncoding ?? String(rest)
            if isWindowsAbsolute(String(path.dropFirst())) { return windows(String(path.dropFirst())) }
            return absolute(PathText.normalize(path), in: folder, fileSystem)
        }
        if location.lowercased().hasPrefix("file:/") {   // `file:/home/a.mp4`: no empty host (Java's File.toURI)
            let rest = String(location.dropFirst("file:".count))
            return absolute(PathText.normalize(rest.removingPercentEncoding ?? rest), in: folder, fileSystem)
        }
        let line = isURI ? location.removingPercentEncoding ?? location : location
        if isWindowsAbsolute(line) { return windows(line) }
        if line.hasPrefix("/") { return absolute(PathText.normalize(line), in: folder, fileSystem) }
        let literal = PathText.resolve(line, against: folder)
        guard line.contains("\\"), fileSystem.kind(ofItemAt: literal) == nil else { return .path(literal) }
        return .path(PathText.resolve(line.replacingOccurrences(of: "\\", with: "/"), against: folder))
    }

    /// An absolute path as written when it is there, else the file beside the playlist file
    /// its last folders and name name (`foundBeside`), else as written (said missing).
    private static func absolute(_ path: String, in folder: String, _ fileSystem: any PlaylistFileSystem) -> PlaylistLine {
        guard fileSystem.kind(ofItemAt: path) == nil else { return .path(path) }
        return foundBeside(path, in: folder, fileSystem) ?? .path(path)
    }

    /// A name of another computer's (`/home/me/Videos/lobby/a.mp4`, `C:\Users\me\Videos\a.mp4`:
    /// VLC saves absolute names, Windows' players drive letters), for a list copied with its
    /// files: beside the playlist file at `folder`, the longest of its last three folders with
    /// its name that is there (`lobby/a.mp4`, then `a.mp4`); nil when none is.
    static func foundBeside(_ written: String, in folder: String, _ fileSystem: any PlaylistFileSystem) -> PlaylistLine? {
        let names = written.split { $0 == "/" || $0 == "\\" }.map(String.init)
            .filter { $0 != "." && $0 != ".." && !$0.hasSuffix(":") }   // nor a drive letter
        for count in stride(from: min(4, names.count), through: 1, by: -1) {
            let candidate = PathText.normalize(folder + "/" + names.suffix(count).joined(separator: "/"))
            if fileSystem.kind(ofItemAt: candidate) != nil { return .path(candidate) }
        }
        return nil
    }

    /// `C:\Media\a.mp4`, `C:/Media/a.mp4`, `\\server\share\a.mp4`, and `\Media\a.mp4` (the
    /// root of Windows' current drive: not this box's `/Media`).
    static func isWindowsAbsolute(_ text: String) -> Bool {
        if text.hasPrefix("\\") { return true }
        let characters = Array(text.prefix(3))
        return characters.count == 3 && characters[0].isASCII && characters[0].isLetter && characters[1] == ":"
            && (characters[2] == "\\" || characters[2] == "/")
    }

    private static func windowsPath(_ location: String) -> String {
        "'\(quotedForMessage(location))' is a Windows path, not one on this box: write the names relative to the playlist file "
            + "(Media\\clip.mp4 or Media/clip.mp4) and keep the files beside it"
    }
}

extension PlaylistExpansion {
    /// The entries of `item`'s playlist file: an entry's title (`#EXTINF`'s, XSPF's) over the item's (it names this
    /// entry, the item's names all of them); its seconds as a picture's `duration` unless the
    /// item sets one (a video plays its own length, a stream until it ends).
    mutating func add(_ listing: PlaylistFileListing, of item: ItemConfig, at index: Int, expander: PlaylistExpander) {
        for listed in listing.entries {
            var entry = expander.entry(playing: listed.media, of: item, at: index)
            if let title = listed.title { entry.title = title }
            if let seconds = listed.seconds, item.duration == nil, entry.isStillImage || entry.isAnimatedPicture {
                entry.item.duration = MediaTime(seconds: seconds)
            }
            entries.append(entry)
        }
        diagnostics += listing.problems.map { ConfigDiagnostic(location: item.location, message: $0) }
        playlistFilesRead += listing.files
        missing += listing.missing
        if listing.problemCount > listing.problems.count {
            diagnostics.append(ConfigDiagnostic(location: item.location, message:
                "\(listing.problemCount - listing.problems.count) more problems with playlist file "
                + "'\(quotedForMessage(item.source.description))' (or the playlist files it lists); those lines are skipped"))
        }
    }
}
