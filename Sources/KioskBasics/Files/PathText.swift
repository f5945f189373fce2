/// Path text helpers: plain string work, no file-system access.
package enum PathText {
    /// `path` made absolute against `base` (unless it already is), with "." and ".." and
    /// doubled slashes folded away. A relative base gives a relative result.
    package static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") || base.isEmpty { return normalize(path) }
        return normalize(base + "/" + path)
    }

    /// Whether normalized `path` is `root` or below it (`/media/sda10` is not below `/media/sda1`).
    package static func isInside(_ path: String, _ root: String) -> Bool {
        let (path, root) = (normalize(path), normalize(root))
        return path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    package static func normalize(_ path: String) -> String {
        let isAbsolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                if let last = parts.last, last != ".." { parts.removeLast() }
                else if !isAbsolute { parts.append(part) }   // "/.." is "/"; "../x" stays
            default: parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        if isAbsolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    package static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The lowercased extension of the last component, "" when there is none.
    package static func lowercasedExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
