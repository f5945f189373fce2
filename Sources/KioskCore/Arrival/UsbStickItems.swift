/// What a stick plays: a playlist file at its top when it holds one (`show.m3u`, VLC's
/// `.xspf`...: the order and titles the person wrote, as BrightSign's and others' sticks do),
/// else its media files, its folders too (`MediaTree`). Pure: the stick watcher lists the top.
public enum UsbStickItems {
    /// The item for the stick at `folder` as `fileSystem` holds it. Lists are regular files with
    /// something in them (not a folder named `a.m3u`, not one being written) and on the stick
    /// for real: `show.m3u -> /etc/shadow` on an ext4 stick would have its lines quoted in the log.
    public static func item(for folder: String, fileSystem: any PlaylistFileSystem) -> (item: ItemConfig, note: String?) {
        let names = ((try? fileSystem.contentsOfDirectory(atPath: folder)) ?? []).filter { name in
            let path = PathText.normalize(folder + "/" + name)
            return !PlaylistFile.isNamed(name)
                || (fileSystem.fingerprint(atPath: path).map { $0.size > 0 } == true && fileSystem.isConfined(path, to: folder))
        }
        return item(for: folder, topNames: names)
    }

    /// The item for the stick at `folder` whose top holds `names`, and a line to say when it
    /// holds several playlist files (the first by name plays).
    public static func item(for folder: String, topNames names: [String]) -> (item: ItemConfig, note: String?) {
        let location = SourceLocation(file: "usb", line: 0, column: 0)
        // Hidden names and macOS's `._` forks are not the person's lists.
        let lists = NaturalOrder.sorted(names.filter { !$0.hasPrefix(".") && PlaylistFile.isNamed($0) })
        guard let first = lists.first else { return (ItemConfig(source: .tree(folder), location: location), nil) }
        let note = lists.count == 1 ? nil
            : "\(lists.count) playlist files at the top of \(folder) (\(lists.prefix(3).map { quotedForMessage($0) }.joined(separator: ", "))"
            + "\(lists.count > 3 ? ", ..." : "")): \(quotedForMessage(first)) plays, the first by name"
        return (ItemConfig(source: .file(PathText.normalize(folder + "/" + first)), location: location), note)
    }
}
