/// A name written in kiosk.conf or a playlist file that is not on disk byte for byte, found as
/// the disk spells it. Linux compares names by their bytes, people by how they read:
/// - the same letters in another Unicode form: macOS writes names decomposed (`é` as `e` and
///   U+0301) onto sticks and shares, while an editor or a CMS on Windows writes them composed,
///   so `Café.mp4` in a list does not open `Café.mp4` copied from a Mac (Swift's String `==`,
///   and so a String-keyed dictionary, is canonical equivalence: the forms are one key);
/// - another letter case, when one name only differs so: a list written on Windows, where
///   `Intro.MP4` and `intro.mp4` are one file, copied with its files onto an ext4 disk.
/// Each component missing is looked for in its folder; a name two entries answer to (`a.mp4`
/// and `A.mp4` for `A.MP4`) stays missing, as does one that is not there. Folders are listed
/// once per `NameSpelling.Folders` (a list's 64 missing names in one 5,000-file folder: one
/// listing). Under a stick's confinement the caller passes the confined view: a link on the
/// stick to `/etc` is not listed through.
package enum NameSpelling {
    /// Folders listed in one call at most: a path of 40 missing folders costs 16 listings.
    static let componentLimit = 16

    /// The names of the folders listed so far, each by its spelling and by its lower case.
    package struct Folders: Sendable, Equatable {
        struct Names: Sendable, Equatable {
            var same: [String: [String]] = [:]
            var folded: [String: [String]] = [:]

            init(_ entries: [String]) {
                for entry in entries {
                    same[entry, default: []].append(entry)
                    folded[entry.lowercased(), default: []].append(entry)
                }
            }
        }
        var listed: [String: Names?] = [:]
        package init() {}
    }

    /// `path` (absolute, normalized) as the disk spells it, when it is not there by its bytes
    /// and each missing component has one spelling there; nil otherwise (or when it is there).
    package static func onDisk(_ path: String, fileSystem: any PlaylistFileSystem) -> String? {
        var folders = Folders()
        return onDisk(path, fileSystem: fileSystem, folders: &folders)
    }

    package static func onDisk(_ path: String, fileSystem: any PlaylistFileSystem, folders: inout Folders) -> String? {
        guard path.hasPrefix("/"), fileSystem.kind(ofItemAt: path) == nil else { return nil }
        var found = ""
        var listings = 0
        for component in path.split(separator: "/").map(String.init) {
            let written = found + "/" + component
            if fileSystem.kind(ofItemAt: written) != nil {
                found = written
                continue
            }
            listings += 1
            guard listings <= componentLimit,
                  let names = names(in: found.isEmpty ? "/" : found, fileSystem: fileSystem, folders: &folders),
                  let name = spelling(of: component, in: names) else { return nil }
            found += "/" + name
        }
        return fileSystem.kind(ofItemAt: found) != nil ? found : nil
    }

    private static func names(in folder: String, fileSystem: any PlaylistFileSystem, folders: inout Folders) -> Folders.Names? {
        if let known = folders.listed[folder] { return known }
        let names = (try? fileSystem.contentsOfDirectory(atPath: folder)).map(Folders.Names.init)
        folders.listed[folder] = names
        return names
    }

    /// The one name that reads as `wanted`: in another Unicode form, else in another letter
    /// case; nil when none or several do.
    static func spelling(of wanted: String, in names: Folders.Names) -> String? {
        if let same = names.same[wanted] { return same.count == 1 ? same[0] : nil }
        let cased = names.folded[wanted.lowercased()] ?? []
        return cased.count == 1 ? cased[0] : nil
    }

    /// `spelling(of:in:)` over a plain list of names (tests).
    static func spelling(of wanted: String, among entries: [String]) -> String? {
        spelling(of: wanted, in: Folders.Names(entries))
    }
}
