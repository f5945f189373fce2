/// What an item naming a playlist file (`PlaylistFile`) lists: its entries with their titles
/// and seconds, playlist files it names expanded in place (a directory named
/// there gives its media), and why a line gave nothing. Bounded whatever the files hold: a
/// hostile list (files listing files listing files, 700,000 lines of missing names) costs at
/// most `lineLimit` lines read and `fileLimit` files opened, and keeps a few messages.
public struct PlaylistFileListing: Sendable, Equatable {
    public struct Listed: Sendable, Equatable {
        public var media: MediaReference
        public var title: String?
        public var seconds: Double?
    }

    /// Lines looked at through one item's playlist files, nested ones included.
    public static let lineLimit = 50_000
    /// Playlist files opened for one item (a file listed twice is read once).
    public static let fileLimit = 64
    /// Folders watched for one item.
    public static let folderLimit = 256
    /// Paths found missing that the folder watcher's cache looks for again (`missing`).
    public static let missingLimit = 64
    /// Messages kept; the rest are counted (`problemCount`).
    public static let problemsKept = 10

    public var entries: [Listed] = []
    /// The first `problemsKept` messages (the file, the line, the reason) of `problemCount`.
    public var problems: [String] = []
    public var problemCount = 0
    /// The folders the listing depends on (the playlist files' own, each listed file's, each
    /// listed directory), for the folder watcher: an edited playlist or a listed file that
    /// arrives is seen as a watched folder's change is.
    public private(set) var folders: [String] = []
    /// The playlist files read for it (the item's, then those it lists), and up to
    /// `missingLimit` paths it looked for and did not find: what a reader keeps the listing's
    /// folders by (`PlaylistFileFolders`), until one of them changes or appears.
    public var files: [String] = []
    public var missing: [String] = []
    /// Names not there by their bytes still to be looked for as the disk spells them (`NameSpelling`).
    var respellingsLeft = missingLimit
    /// The folders listed to look for them.
    var folderNames = NameSpelling.Folders()
    /// A limit was reached: no more lines are looked at.
    public var stopped = false
    var linesLooked = 0
    /// Each playlist file read, by path (nil: an HLS stream's), so one listed again is not read again.
    var parsed: [String: PlaylistFile?] = [:]
    private var folderSet: Set<String> = []

    mutating func add(_ media: MediaReference, _ entry: PlaylistFile.Entry) {
        entries.append(Listed(media: media, title: entry.title, seconds: entry.seconds))
    }

    mutating func addFolder(_ folder: String) {
        guard folders.count < Self.folderLimit, folderSet.insert(folder).inserted else { return }
        folders.append(folder)
    }

    mutating func addMissing(_ path: String) {
        if missing.count < Self.missingLimit { missing.append(path) }
    }

    mutating func say(_ problem: String) {
        problemCount += 1
        if problems.count < Self.problemsKept { problems.append(problem) }
    }

    /// Says why the listing stops here (once, however deep the file it happened in), kept
    /// past the first `problemsKept`: what a person must read to know the list is cut.
    mutating func stop(_ why: String) {
        guard !stopped else { return }
        stopped = true
        problemCount += 1
        problems.append(why)
    }
}
