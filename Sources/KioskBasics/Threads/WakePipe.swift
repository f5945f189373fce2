#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// A pipe one thread polls beside its other descriptors and any thread writes to, to wake it
/// (a stop, a reload): the way a watcher blocks until something happens instead of waking
/// every quarter second to look. Both ends non-blocking and close-on-exec; a full pipe already
/// means "wake up", so `wake()` never blocks.
///
/// Why not eventfd: Glibc's `sys/eventfd.h` is not in Swift's Glibc module, and a pipe is
/// what the control socket and input threads used already (now this type).
public final class WakePipe: @unchecked Sendable {
    // Safe to share: the descriptors are fixed at init; write(2) and read(2) are thread-safe.
    /// The end to poll for POLLIN; -1 when no pipe could be made (then `wait` sleeps its
    /// timeout, and a caller polling others should keep a timeout of its own).
    public let descriptor: Int32
    private let writeEnd: Int32

    public init() {
        // pipe2 is not visible to Swift (it needs _GNU_SOURCE): pipe, then the flags.
        if let (readEnd, writeEnd) = try? FileDescriptor.pipe() {
            for fd in [readEnd.rawValue, writeEnd.rawValue] {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            descriptor = readEnd.rawValue
            self.writeEnd = writeEnd.rawValue
        } else {
            descriptor = -1
            writeEnd = -1
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// True when the pipe exists: a caller may then block without a timeout.
    public var isUsable: Bool { descriptor >= 0 }

    /// Wakes the poller (now, or at its next poll).
    public func wake() {
        guard writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe: the wakes so far are taken.
    public func drain() {
        guard descriptor >= 0 else { return }
        var sink = [UInt8](repeating: 0, count: 64)
        while sink.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// A poll entry for the caller's own poll(2) over several descriptors.
    public var pollEntry: pollfd { pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0) }

    /// Waits until woken or `seconds` pass (nil: until woken); true when woken. The wake is
    /// taken (the pipe emptied).
    @discardableResult
    public func wait(seconds: Double?) -> Bool {
        var poller = pollEntry
        let ready = poll(&poller, 1, Self.milliseconds(seconds, usable: isUsable))
        guard ready > 0 else { return false }
        drain()
        return true
    }

    /// poll(2)'s timeout for `seconds`: rounded up (a deadline is reached, not missed by a
    /// fraction), -1 for none, capped at a minute (a clock that jumps is then looked at again);
    /// with no pipe, at most 0.2 s so a stop is still seen.
    public static func milliseconds(_ seconds: Double?, usable: Bool = true) -> Int32 {
        var value: Int32 = -1
        if let seconds { value = Int32(min(60_000, max(0, (seconds * 1000).rounded(.up)))) }
        if !usable { value = value < 0 ? 200 : min(value, 200) }
        return value
    }
}
