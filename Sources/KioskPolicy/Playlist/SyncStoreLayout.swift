/// Where things live in the content sync store (`sync.dir`):
///
///     objects/<sha256>             whole, verified files, named by their hash
///     partial/<sha256>             a download under way (bytes so far)
///     partial/<sha256>.validator   the ETag or Last-Modified it was fetched with (for If-Range)
///     sets/<id>/0001/<name>        one set: numbered folders keep the manifest's order, each holds
///                                  a hard link to an object under the file's manifest name, and
///                                  `.title` when the manifest gives the file a title
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

    /// The folder of the file at `position` (0-based) in a set: "0001", "0002"... (natural order
    /// sorts them right past 9999 too).
    public static let titleFileName = ".title"

    public static func slotName(_ position: Int) -> String {
        let digits = String(position + 1)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
