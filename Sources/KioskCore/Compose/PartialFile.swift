/// Where a tool writes a file before it is complete: beside it (same directory, so the final
/// rename(2) is atomic), hidden and with a `.part` suffix: the two marks the watched-folder code
/// ignores (`WatchedFolders`: names starting with "." and extensions that are not media), so a
/// watched folder never plays half a file.
public enum PartialFile {
    /// `library/clip.mp4` -> `library/.clip.mp4.part`.
    public static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return directory + "." + name + ".part"
    }

    /// The directory `path` is in ("." for a bare name).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
