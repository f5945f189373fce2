#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// One message the kernel broadcasts when a device changes (a kobject uevent): `change@DEVPATH`
/// then `KEY=value` lines, NUL-separated. DRM sends `SUBSYSTEM=drm`, `HOTPLUG=1` (and, since
/// Linux 5.x, `CONNECTOR=<id>`) when a screen is plugged or unplugged.
public struct KernelUevent: Sendable, Equatable {
    public let properties: [String: String]

    public init(properties: [String: String]) { self.properties = properties }

    /// A display's hotplug: userspace is to look at its connectors again (DRM's GETCONNECTOR).
    public var isDisplayHotplug: Bool { properties["SUBSYSTEM"] == "drm" && properties["HOTPLUG"] == "1" }

    /// A datagram as recv(2) returned it; nil for one that is not a kernel uevent (udev's own
    /// rebroadcasts start with "libudev" and come on another group, but a wrong one is ignored).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> KernelUevent? {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard let header = fields.first, header.contains("@") else { return nil }
        var properties: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else { continue }
            properties[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        return KernelUevent(properties: properties)
    }
}

/// Why the uevent socket could not be had, in one line.
public struct KernelUeventError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let code: Int32
    public var description: String { "kernel uevents: \(call): \(Errno(rawValue: code).description)" }
}

/// The kernel's uevent broadcast (a NETLINK_KOBJECT_UEVENT socket on its group 1), as udev
/// hears it, without udev: the guest of the test bed and minimal images have none. Used from
/// one thread.
public final class KernelUevents {
    public let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    public init() throws(KernelUeventError) {
        let netlink: Int32 = 16, kobjectUevent: Int32 = 15
        let raw = socket(netlink, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                         kobjectUevent)
        guard raw >= 0 else { throw KernelUeventError(call: "socket", code: errno) }
        // struct sockaddr_nl: family, padding, port id (0: the kernel picks), groups (1: kernel events).
        var address = [UInt8](repeating: 0, count: 12)
        address.withUnsafeMutableBytes {
            $0.storeBytes(of: UInt16(netlink), toByteOffset: 0, as: UInt16.self)
            $0.storeBytes(of: UInt32(1), toByteOffset: 8, as: UInt32.self)
        }
        let bound = address.withUnsafeBytes { bind(raw, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), 12) }
        guard bound == 0 else {
            let code = errno
            close(raw)
            throw KernelUeventError(call: "bind", code: code)
        }
        descriptor = raw
    }

    deinit { close(descriptor) }

    /// What came within `timeout` seconds (all that are queued once one came); `lost`: the
    /// socket overflowed (ENOBUFS) and some were dropped, so the caller must look at everything.
    public func wait(timeout: Double) -> (events: [KernelUevent], lost: Bool) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(0, timeout) * 1000)) > 0 else { return ([], false) }
        var events: [KernelUevent] = [], lost = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == ENOBUFS { lost = true; continue }
            guard count > 0 else { break }   // EAGAIN: drained
            if let event = buffer.withUnsafeBytes({ KernelUevent.parse(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }) {
                events.append(event)
            }
        }
        return (events, lost)
    }
}
