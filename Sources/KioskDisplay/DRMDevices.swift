import Glibc

/// Finds DRM card nodes: /dev/dri/card0, card1, ... in number order.
public enum DRMDevices {
    public static let defaultDirectory = "/dev/dri"

    /// Card nodes in `directory`, numerically sorted. Render nodes (renderD*) cannot modeset and
    /// are left out.
    public static func cardPaths(in directory: String = defaultDirectory) throws(DRMError) -> [String] {
        guard let dir = opendir(directory) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .noDRMDirectory(directory) }
            if code == EACCES { throw .permissionDenied(path: directory, group: nil, gid: ownerGroup(directory)) }
            throw .cannotOpen(path: directory, errno: code)
        }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = cString(entry.pointee.d_name)
            if name.hasPrefix("card"), let number = Int(name.dropFirst(4)) { numbers.append(number) }
        }
        guard !numbers.isEmpty else { throw .noCards(directory) }
        return numbers.sorted().map { "\(directory)/card\($0)" }
    }

    /// "card1" or "/dev/dri/card1" -> "/dev/dri/card1"; any other path is kept as given.
    public static func resolve(_ card: String, in directory: String = defaultDirectory) -> String {
        card.contains("/") ? card : "\(directory)/\(card)"
    }

    private static func ownerGroup(_ path: String) -> UInt32 {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_gid : 0
    }
}
