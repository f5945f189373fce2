/// A name written in kiosk.conf or a playlist file that is not on disk byte for byte, found as
/// the disk spells it. Linux compares names by their bytes, people by how they read:
/// - the same letters in another Unicode form: macOS writes names decomposed (`é` as `e` and
///   U+0301) onto sticks and shares, while an editor or a CMS on Windows writes them composed,
///   so `Café.mp4` in a list does not open `Café.mp4` copied from a Mac (Swift's String `==` is
///   canonical equivalence: the forms compare equal);
/// - another letter case, when one name only differs so: a list written on Windows, where
///   `Intro.MP4` and `intro.mp4` are one file, copied with its files onto an ext4 disk.
/// Each component missing is looked for in its folder (one listing each); a name two entries
/// answer to (`a.mp4` and `A.mp4` for `A.MP4`) stays missing, as does one that is not there.
package enum NameSpelling {
    /// Components looked for in one call: a path of 40 folders costs at most 16 listings.
    static let componentLimit = 16

    /// `path` (absolute, normalized) as the disk spells it, when it is not there by its bytes
    /// and each missing component has one spelling there; nil otherwise (or when it is there).
    package static func onDisk(_ path: String, fileSystem: any PlaylistFileSystem) -> String? {
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
                  let names = try? fileSystem.contentsOfDirectory(atPath: found.isEmpty ? "/" : found),
                  let name = spelling(of: component, among: names) else { return nil }
            found += "/" + name
        }
        return fileSystem.kind(ofItemAt: found) != nil ? found : nil
    }

    /// The one name of `names` that reads as `wanted`: in another Unicode form, else in another
    /// letter case; nil when none or several do.
    static func spelling(of wanted: String, among names: [String]) -> String? {
        let same = names.filter { $0 == wanted }
        if same.count == 1 { return same[0] }
        guard same.isEmpty else { return nil }
        let folded = wanted.lowercased()
        let cased = names.filter { $0.lowercased() == folded }
        return cased.count == 1 ? cased[0] : nil
    }
}
