import Glibc
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
    let fd: FileDescriptor
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    /// nil if inotify is unavailable (then devices present at start are all there is).
    init?(directory: String) {
        self.directory = directory
        let raw = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard raw >= 0 else { return nil }
        fd = FileDescriptor(rawValue: raw)
        if !watchDirectory() {
            let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
            parentWatch = inotify_add_watch(fd.rawValue, parent.isEmpty ? "/" : parent, UInt32(IN_CREATE))
        }
    }

    deinit { try? fd.close() }

    private func watchDirectory() -> Bool {
        directoryWatch = inotify_add_watch(fd.rawValue, directory, UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM))
        return directoryWatch >= 0
    }

    /// Reads the pending inotify records (the fd is non-blocking).
    func readChanges() -> [HotplugChange] {
        var changes: [HotplugChange] = []
        let capacity = 8192
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            // Until it would block (EAGAIN) or fails; an interrupted read is tried again.
            guard let count = try? fd.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)),
                  count > 0 else { break }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len, then `len` bytes of NUL-padded name.
            // Its name is a flexible array member, which Swift cannot reach: read by offset.
            while offset + 16 <= count {
                let watch = buffer.load(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = UnsafeRawBufferPointer(start: buffer + offset + 16, count: min(length, count - offset - 16))
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                offset += 16 + length
                if let change = change(watch: watch, mask: mask, name: name) { changes.append(change) }
            }
        }
        return changes
    }

    private func change(watch: Int32, mask: UInt32, name: String) -> HotplugChange? {
        if watch == parentWatch && watch >= 0 {
            guard mask & UInt32(IN_CREATE) != 0, directory.hasSuffix("/" + name), directoryWatch < 0, watchDirectory() else {
                return nil
            }
            inotify_rm_watch(fd.rawValue, parentWatch)
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
