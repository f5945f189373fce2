/// What an item names, decided from its text (see `ItemSource.classify`). Paths are resolved
/// against the config file's directory and normalized; URLs are kept as written.
public enum ItemSource: Sendable, Hashable, CustomStringConvertible {
    /// One media file.
    case file(String)
    /// A network stream: http(s), HLS, rtsp, rtmp, udp, srt...
    case url(String)
    /// A directory: its media files, in natural name order.
    case directory(String)
    /// A pattern with * ? [...] in fnmatch(3) syntax, matched component by component.
    case glob(String)
    /// `- sync: true`: the content sync store's current set (the store's folder), in manifest order.
    case synced(String)
    /// A folder and its subfolders' media, depth first in natural order of the path
    /// (`MediaTree`): what a USB stick plays.
    case tree(String)
    /// `text: "..."`: a card kiosk draws (`TextCard`), no file.
    case card(TextCard)

    public var description: String {
        switch self {
        case .card(let card): return card.name
        case .synced(let store): return "the synced set in " + store
        case .file(let path): return path
        case .url(let url): return url
        case .directory(let path): return path + "/"
        case .tree(let path): return path + "/**"
        case .glob(let pattern): return pattern
        }
    }

    /// Decides what `text` names. In order: a scheme (`name://`) makes a URL (`file://` is
    /// unwrapped to a path); wildcard characters make a glob unless that exact path exists;
    /// a trailing "/" or an existing directory makes a directory; anything else is a file,
    /// which may appear later (a USB stick mounted after boot), so it is not checked here.
    /// Globs come before the trailing-slash test so that "clips/*/" stays a pattern.
    public static func classify(_ text: String, baseDirectory: String,
                                fileSystem: any PlaylistFileSystem) -> ItemSource {
        if let scheme = urlScheme(of: text) {
            guard scheme == "file" else { return .url(text) }
            let path = String(text.dropFirst("file://".count))
            return classify(path.isEmpty ? "/" : path, baseDirectory: baseDirectory, fileSystem: fileSystem)
        }
        let resolved = PathText.resolve(text, against: baseDirectory)
        let kind = fileSystem.kind(ofItemAt: resolved)
        if text.contains(where: { "*?[".contains($0) }), kind == nil {
            return .glob(resolved)
        }
        if text.hasSuffix("/") || kind == .directory { return .directory(resolved) }
        return .file(resolved)
    }

    /// The scheme of "scheme://rest" in lowercase, nil when `text` does not start like a URL.
    package static func urlScheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }
}

/// `transport` of an rtsp:// item.
public enum StreamTransport: String, Sendable, Equatable, CaseIterable {
    case tcp, udp
}

/// One entry of `items`: the short form (just the text) or a map with `path` and options.
/// Options left out (nil) fall back to the `playback`/`audio` settings.
public struct ItemConfig: Sendable, Equatable {
    public var source: ItemSource
    /// `gravity`: this item's fit/fill/stretch.
    public var gravity: VideoGravity?
    /// `transition`: how this item comes in at a seam; nil: `playback.transition`.
    public var transition: Transition?
    /// `volume`: 0-100.
    public var volume: Int?
    /// `muted`.
    public var muted: Bool?
    /// `start`: trim, where playback begins (seconds, or m:ss / h:mm:ss).
    public var start: MediaTime?
    /// `end`: trim, where playback stops; after `start`.
    public var end: MediaTime?
    /// `loop`: plays in a row, >= 1 (each file of a directory or glob is repeated in turn).
    public var loopCount = 1
    /// `duration`: how long a still image stays, or a live stream plays before the next item;
    /// files ignore it.
    public var duration: MediaTime?
    /// `transport`: how an rtsp:// item's media comes (RTSP's own default: UDP, then TCP).
    public var transport: StreamTransport?
    /// `latency`: seconds of a live stream buffered before it plays (after a start or a loss);
    /// an srt:// item asks its sender for the same. Nil: 0.3 s (SRT: its own 120 ms).
    public var latency: MediaTime?
    /// `fallback`: an image shown while a live stream is away (after its last frame held 1 s).
    public var fallback: String?
    /// `title`: shown by the overlay; nil means the file name.
    public var title: String?
    /// The playlist of kiosk.conf it is written in (`default` for `items:`, a name of
    /// `playlists:`); nil for a list of no playlist (a trigger's `items`, a screen's own, a
    /// `load`). Proof of play names it.
    public var playlist: String?
    /// Where the item was written, for messages about it (a missing file, an empty directory).
    public var location: SourceLocation

    public init(source: ItemSource, location: SourceLocation) {
        self.source = source
        self.location = location
    }
}

extension ItemConfig {
    /// The item as it would read anywhere in the file: for comparing what it says.
    public var withoutLocation: ItemConfig {
        var copy = self
        copy.location = SourceLocation(file: "", line: 0, column: 0)
        return copy
    }
}

extension PlaylistEntry {
    /// The same media with the same options, wherever its item is written in the file.
    public func playsLike(_ other: PlaylistEntry) -> Bool {
        var mine = self, theirs = other
        mine.item = item.withoutLocation
        theirs.item = other.item.withoutLocation
        return mine == theirs
    }
}

extension [PlaylistEntry] {
    /// Both lists play the same media with the same options in the same order.
    public func playLike(_ other: [PlaylistEntry]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.playsLike($1) }
    }
}
