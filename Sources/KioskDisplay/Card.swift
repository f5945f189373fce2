import Foundation
import CDRM
import Glibc
import KioskCore
import SystemPackage

/// One open DRM card node (/dev/dri/cardN): the file descriptor, its capabilities and master
/// state. Closing is explicit (`close()`), and deinit closes what was left open.
final class Card {
    let path: String
    /// The card's descriptor; -1 once closed, so a libdrm call made after `close()` fails
    /// (EBADF) instead of reaching whatever file reused the number.
    private(set) var fd: FileDescriptor
    /// DRM_CLIENT_CAP_UNIVERSAL_PLANES accepted: primary and cursor planes are listed.
    let hasUniversalPlanes: Bool
    /// DRM_CLIENT_CAP_ATOMIC accepted (only asked for when `wantAtomic`).
    let hasAtomic: Bool
    /// DRM_CLIENT_CAP_WRITEBACK_CONNECTORS accepted (atomic clients only): writeback connectors
    /// are listed (`CardSnapshot.writebacks`, never among the screens).
    let listsWriteback: Bool
    /// Who holds each GEM handle: kiosk's dumb buffers and PRIME imports (PrimeFramebuffer).
    let gemHandles = GEMHandles()

    /// Opens `path` read-write. Asks for universal planes always and atomic if `wantAtomic`.
    init(path: String, wantAtomic: Bool) throws(DRMError) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readWrite, options: .closeOnExec)
        } catch {
            let code = (error as? Errno)?.rawValue ?? EIO
            switch code {
            case ENOENT: throw .noSuchCard(path)
            case EACCES, EPERM:
                var info = stat()
                let gid = stat(path, &info) == 0 ? info.st_gid : 0
                throw .permissionDenied(path: path, group: groupName(gid), gid: gid)
            default: throw .cannotOpen(path: path, errno: code)
            }
        }
        // A node that answers no DRM version query is not a DRM device (a wrong path).
        guard let version = drmGetVersion(fd.rawValue) else {
            try? fd.close()
            throw .notDRMDevice(path)
        }
        drmFreeVersion(version)
        self.path = path
        self.fd = fd
        hasUniversalPlanes = drmSetClientCap(fd.rawValue, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0
        // Atomic implies universal planes; the kernel refuses it to clients that cannot do both.
        hasAtomic = wantAtomic && hasUniversalPlanes && drmSetClientCap(fd.rawValue, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
        // Kernels before 4.19 and drivers without writeback refuse nothing here: the list is then
        // simply empty. DRM_CLIENT_CAP_WRITEBACK_CONNECTORS is 5 (libdrm 2.4.114 defines it).
        listsWriteback = hasAtomic && drmSetClientCap(fd.rawValue, 5, 1) == 0
    }

    deinit { close() }

    var isOpen: Bool { fd.rawValue >= 0 }

    func close() {
        guard isOpen else { return }
        // Under the handles' lock: an imported frame released on another thread reads `fd`
        // under it (PrimeFramebuffer), and must not reach a number reused by another file.
        gemHandles.update { _ in
            try? fd.close()
            fd = FileDescriptor(rawValue: -1)
        }
    }

    /// DRM_CAP_* value, nil when the kernel does not know the capability.
    func capability(_ cap: Int32) -> UInt64? {
        var value: UInt64 = 0
        return drmGetCap(fd.rawValue, UInt64(cap), &value) == 0 ? value : nil
    }

    var isMaster: Bool { drmIsMaster(fd.rawValue) != 0 }

    /// Becomes DRM master. The first opener of a card with no master already is one; failing
    /// here means another open file holds the screen (EBUSY), or held it and we may not take it
    /// over (EACCES without CAP_SYS_ADMIN).
    func becomeMaster() throws(DRMError) {
        if isMaster { return }
        if drmSetMaster(fd.rawValue) == 0, isMaster { return }
        throw .anotherMaster(path: path, holder: masterHolder())
    }

    func dropMaster() { if isOpen, isMaster { _ = drmDropMaster(fd.rawValue) } }

    /// Best effort: the process holding master, from debugfs' clients list (root only, and
    /// only when debugfs is mounted); nil when it cannot be told.
    func masterHolder() -> String? {
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { return nil }
        let minor = Int(info.st_rdev & 0xff)
        guard let text = readSmallFile("/sys/kernel/debug/dri/\(minor)/clients") else { return nil }
        // Columns: command pid dev master a uid magic; "y" in the master column.
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            if columns.count >= 4, columns[3] == "y", let pid = Int32(columns[1]), pid != getpid() {
                return "\(columns[0]) pid \(pid)"
            }
        }
        return nil
    }

    /// The kernel driver's name, e.g. "bochs-drm" or "virtio_gpu".
    var driverName: String {
        guard let version = drmGetVersion(fd.rawValue) else { return "unknown" }
        defer { drmFreeVersion(version) }
        return version.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    /// The CLOCK_MONOTONIC time (seconds) of the CRTC's latest vblank, or nil when the driver
    /// has no vblanks (bochs, virtio-gpu: the kernel answers EOPNOTSUPP) or the CRTC is off.
    func lastVblank(crtcID: UInt32) -> Double? {
        var sequence: UInt64 = 0, nanoseconds: UInt64 = 0
        guard drmCrtcGetSequence(fd.rawValue, crtcID, &sequence, &nanoseconds) == 0, nanoseconds > 0 else { return nil }
        return Double(nanoseconds) / 1e9
    }

    /// Every property of a KMS object: name, id, current value and, for enums and bitmasks,
    /// the names of the values.
    func properties(of objectID: UInt32, type: UInt32) -> [DRMProperty] {
        guard let list = drmModeObjectGetProperties(fd.rawValue, objectID, type) else { return [] }
        defer { drmModeFreeObjectProperties(list) }
        var result: [DRMProperty] = []
        for i in 0..<Int(list.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd.rawValue, list.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            result.append(DRMProperty(prop.pointee, value: list.pointee.prop_values[i]))
        }
        return result
    }
}

/// The card's `GEMHandleLedger` behind a lock: displays of one card (SharedCard) and their
/// render threads make and free buffers on it.
final class GEMHandles: @unchecked Sendable {
    private let lock = NSLock()
    private var ledger = GEMHandleLedger()

    func update<T>(_ body: (inout GEMHandleLedger) -> T) -> T {
        lock.lock(); defer { lock.unlock() }
        return body(&ledger)
    }

    var snapshot: GEMHandleLedger { update { $0 } }
}

/// A KMS property, copied out of libdrm's structures.
struct DRMProperty: Sendable {
    let id: UInt32
    let name: String
    let value: UInt64
    let flags: UInt32
    /// Enum and bitmask entries: (name, value); for bitmasks the value is the bit number.
    let enumEntries: [(name: String, value: UInt64)]
    /// Range properties: the bounds.
    let range: [UInt64]

    init(_ prop: drmModePropertyRes, value: UInt64) {
        id = prop.prop_id
        name = cString(prop.name)
        self.value = value
        flags = prop.flags
        var entries: [(String, UInt64)] = []
        if prop.flags & UInt32(DRM_MODE_PROP_ENUM | DRM_MODE_PROP_BITMASK) != 0 {
            for j in 0..<Int(prop.count_enums) {
                entries.append((cString(prop.enums[j].name), prop.enums[j].value))
            }
        }
        enumEntries = entries
        range = prop.flags & UInt32(DRM_MODE_PROP_RANGE) != 0 || isSignedRange(prop.flags)
            ? (0..<Int(prop.count_values)).map { prop.values[$0] } : []
    }

    var isBitmask: Bool { flags & UInt32(DRM_MODE_PROP_BITMASK) != 0 }
    var isEnum: Bool { flags & UInt32(DRM_MODE_PROP_ENUM) != 0 }
    var isImmutable: Bool { flags & UInt32(DRM_MODE_PROP_IMMUTABLE) != 0 }
    var isBlob: Bool { flags & UInt32(DRM_MODE_PROP_BLOB) != 0 }

    /// The value as a person reads it: the enum entry's name, the bitmask's set names joined
    /// with "|", or the number.
    var valueText: String {
        if isEnum, let entry = enumEntries.first(where: { $0.value == value }) { return entry.name }
        if isBitmask {
            let names = enumEntries.filter { $0.value < 64 && value & (1 << $0.value) != 0 }.map(\.name)
            return names.isEmpty ? String(value) : names.joined(separator: "|")
        }
        if isSignedRange(flags) { return String(Int64(bitPattern: value)) }
        return String(value)
    }
}

/// DRM_MODE_PROP_SIGNED_RANGE is DRM_MODE_PROP_TYPE(2), a function-like macro Swift cannot import.
private func isSignedRange(_ flags: UInt32) -> Bool { flags & 0x0000_ffc0 == 2 << 6 }

/// A fixed-size C char array (a tuple in Swift) as a String, stopping at the first NUL.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

func groupName(_ gid: gid_t) -> String? {
    guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
    return String(cString: name)
}

func readSmallFile(_ path: String, limit: Int = 65536) -> String? {
    guard let fd = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) else { return nil }
    return try? fd.closeAfter {
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = try bytes.withUnsafeMutableBytes { try fd.read(into: $0) }
        return count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : nil
    }
}
