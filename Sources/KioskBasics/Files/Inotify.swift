#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// One inotify record: the watch it came on, what happened, and the name in the watched
/// directory it concerns ("" for the directory itself).
public struct InotifyEvent: Sendable, Equatable {
    public let watch: Int32
    public let mask: UInt32
    public let name: String

    public init(watch: Int32, mask: UInt32, name: String) {
        self.watch = watch
        self.mask = mask
        self.name = name
    }

    /// Whether any of `flags` (IN_CREATE | IN_MOVED_TO ...) is set.
    public func has(_ flags: some BinaryInteger) -> Bool { mask & UInt32(truncatingIfNeeded: flags) != 0 }

    /// The records in `bytes` as read(2) returned them: `struct inotify_event` (wd, mask,
    /// cookie, len) and then `len` bytes of NUL-padded name, a flexible array member Swift cannot
    /// reach, so read by offset. A record cut short at the end is left out.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        let header = 16
        while offset + header <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            guard offset + header + length <= bytes.count else { break }
            let name = bytes[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
            events.append(InotifyEvent(watch: watch, mask: mask, name: String(decoding: name, as: UTF8.self)))
            offset += header + length
        }
        return events
    }
}

/// Why an inotify call failed, in one line.
public struct InotifyError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public var description: String { "inotify: \(Errno(rawValue: code).description)" }
}

/// An inotify instance, non-blocking: the one reader of the config watcher, the folder watcher
/// and input hotplug. Used from one thread.
public final class Inotify {
    /// For the caller's poll(2), beside its wake pipe (the watchers, input's thread).
    public let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    public init() throws(InotifyError) {
        let raw = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard raw >= 0 else { throw InotifyError(code: errno) }
        descriptor = raw
    }

    deinit { close(descriptor) }

    /// A new instance, or nil after `failed` was told why (a watcher's one line: the kernel's
    /// inotify instances are a per-user limit).
    public static func opened(else failed: (InotifyError) -> Void) -> Inotify? {
        do {
            return try Inotify()
        } catch {
            failed(error)
            return nil
        }
    }

    /// A watch on `path` for `mask`; its number, which events carry.
    public func watch(_ path: String, for mask: some BinaryInteger) throws(InotifyError) -> Int32 {
        let watch = inotify_add_watch(descriptor, path, UInt32(truncatingIfNeeded: mask))
        guard watch >= 0 else { throw InotifyError(code: errno) }
        return watch
    }

    public func removeWatch(_ watch: Int32) { inotify_rm_watch(descriptor, watch) }

    /// Every record pending now (until the read would block); an interrupted read is tried again.
    public func readEvents() -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return events }
            events += buffer.withUnsafeBytes { InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }
}
