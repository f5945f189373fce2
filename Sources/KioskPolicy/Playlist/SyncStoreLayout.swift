/// Where things live in the content sync store (`sync.dir`):
///
///     objects/<sha256>             whole, verified files, named by their hash
///     partial/<sha256>             a download under way (bytes so far)
///     partial/<sha256>.validator   the ETag or Last-Modified it was fetched with (for If-Range)
///     sets/<id>/<name>/<name>      one set: a folder per file, named as the file (a manifest names
///                                  each file once), holding a hard link to its object under that
///                                  name, and `.title` when the manifest gives the file a title
///     sets/<id>/.order             the folders' names in the manifest's order, one per line
///     current -> sets/<id>         the set that plays, swapped by rename(2) of a symlink
///     manifest.etag                the manifest's ETag, for If-None-Match
///     lock                         flock(2)ed by the pass under way (`kiosk run`'s or `kiosk sync`'s)
///
/// Start-up reads only `current`: no network and no clock are needed to play the last set.
public struct SyncStoreLayout: Sendable, Equatable {
    public var directory: String

    public init(directory: String) { self.directory = directory }

    public var objects: String { PathText.join(directory, "objects") }
    public var partials: String { PathText.join(directory, "partial") }
    public var sets: String { PathText.join(directory, "sets") }
    public var current: String { PathText.join(directory, "current") }
    public var manifestETag: String { PathText.join(directory, "manifest.etag") }
    public var lock: String { PathText.join(directory, "lock") }

    public func object(_ sha256: String) -> String { PathText.join(objects, sha256) }
    public func partial(_ sha256: String) -> String { PathText.join(partials, sha256) }
    public func validator(_ sha256: String) -> String { PathText.join(partials, sha256 + ".validator") }
    public func set(_ id: String) -> String { PathText.join(sets, id) }

    public static let titleFileName = ".title"
    public static let orderFileName = ".order"

    /// The folder of a set's file: its manifest name, the same in every set that has the file, so
    /// a switch to a set that still has the clip on screen leaves its path, and the clip, playing
    /// (numbered folders renumbered at each removal, and a watched folder's diff cut the clip).
    /// Sets made before the order file had numbered folders ("0001"...): read in natural order.
    public static func slotName(forFile name: String) -> String { name }
}
