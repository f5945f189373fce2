import Glibc
import KioskCore
import SystemPackage

/// A change under /dev/input that may concern a device.
enum HotplugChange: Equatable {
    /// A node appeared (IN_CREATE) or its permissions changed (IN_ATTRIB: udev sets the group
    /// a moment after devtmpfs creates the node).
    case appeared(path: String, created: Bool)
    /// A node went away (IN_DELETE, or renamed away).
    case removed(path: String)
    /// The input directory itself appeared (it did not exist at start): scan it.
    case directoryAppeared
}

/// inotify on the input directory. With no udev (the VM bed, minimal images) nodes come from
/// devtmpfs directly; with udev, permissions follow a little later, hence IN_ATTRIB. When the
/// directory does not exist yet (no input device ever plugged since boot), its parent is
/// watched until it does.
final class HotplugWatcher {
    let directory: String
    private let inotify: Inotify
    /// For the input thread's poll.
    var fd: FileDescriptor { FileDescriptor(rawValue: inotify.descriptor) }
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    /// nil if inotify is unavailable (then devices present at start are all there is).
    init?(directory: String) {
        self.directory = directory
        guard let inotify = try? Inotify() else { return nil }
        self.inotify = inotify
        if !watchDirectory() {
            let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
            parentWatch = (try? inotify.watch(parent.isEmpty ? "/" : parent, for: IN_CREATE)) ?? -1
        }
    }

    private func watchDirectory() -> Bool {
        directoryWatch = (try? inotify.watch(directory, for: IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)) ?? -1
        return directoryWatch >= 0
    }

    /// Reads the pending inotify records (the descriptor is non-blocking).
    func readChanges() -> [HotplugChange] {
        inotify.readEvents().compactMap { change(watch: $0.watch, mask: $0.mask, name: $0.name) }
    }

    private func change(watch: Int32, mask: UInt32, name: String) -> HotplugChange? {
        if watch == parentWatch && watch >= 0 {
            guard mask & UInt32(IN_CREATE) != 0, directory.hasSuffix("/" + name), directoryWatch < 0, watchDirectory() else {
                return nil
            }
            inotify.removeWatch(parentWatch)
            parentWatch = -1
            return .directoryAppeared
        }
        guard watch == directoryWatch, EventNodeNames.isEventNode(name) else { return nil }
        let path = directory + "/" + name
        // Renames too: a node made elsewhere and moved in (some setups build /dev by hand).
        if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 { return .removed(path: path) }
        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { return .appeared(path: path, created: true) }
        if mask & UInt32(IN_ATTRIB) != 0 { return .appeared(path: path, created: false) }
        return nil
    }
}
