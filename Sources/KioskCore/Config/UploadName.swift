import Glibc
import KioskPolicy

/// The name an uploaded file is kept under (#36): the browser's name, cleaned so it can never
/// leave the upload folder or hide itself (no `/`, no leading dot, no control characters), with a
/// media extension kiosk plays; a name already taken gets ` (2)`, ` (3)`...
public enum UploadName {
    /// What a playlist's folder lists: an upload it would not list would never play.
    static var mediaExtensions: Set<String> { PlaylistExpander.mediaExtensions }

    /// `../../etc/Menu: Lunch?.MP4` -> `Menu Lunch.MP4`; nil when nothing is left or the extension
    /// is not a media one.
    public static func clean(_ written: String) -> String? {
        let base = written.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let kept = String(base.filter { $0.isLetter || $0.isNumber || " ._-()".contains($0) })
        let ext = extensionOf(kept)
        guard mediaExtensions.contains(ext.lowercased()) else { return nil }
        // The stem at most 200 bytes (a file name's limit is 255, and " (2)" may follow), without
        // leading dots or spaces (hidden files).
        var stem = String(kept.dropLast(ext.count + 1))
        while stem.hasPrefix(".") || stem.hasPrefix(" ") { stem.removeFirst() }
        while stem.utf8.count > 200 { stem.removeLast() }
        while stem.hasSuffix(" ") { stem.removeLast() }
        guard ext.utf8.count <= 16 else { return nil }
        guard !stem.isEmpty else { return nil }
        return stem + "." + ext
    }

    public static func extensionOf(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// `directory/name`, or the first of `name (2).ext`, `name (3).ext`... that `exists` says is free.
    public static func free(_ name: String, in directory: String, exists: (String) -> Bool = fileExists) -> String {
        let ext = extensionOf(name)
        let stem = String(name.dropLast(ext.count + 1))
        var candidate = directory + "/" + name
        var number = 2
        while exists(candidate) {
            candidate = directory + "/\(stem) (\(number)).\(ext)"
            number += 1
        }
        return candidate
    }

    public static func fileExists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
