import Glibc

/// A file system's space as statvfs(3) gives it: what an unprivileged writer may still use
/// (`f_bavail`, not `f_bfree`: the blocks reserved for root are not kiosk's) and its size.
/// One reading for every place that asks (uploads, content sync, the USB copy, the health).
public struct DiskSpace: Sendable, Equatable {
    public var free: Int64
    public var size: Int64

    public init(free: Int64, size: Int64) {
        self.free = free
        self.size = size
    }

    /// The file system holding `path`; nil when it cannot be read (gone, no permission: errno says why).
    public static func of(_ path: String) -> DiskSpace? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let unit = Int64(info.f_frsize)
        return DiskSpace(free: Int64(info.f_bavail) * unit, size: Int64(info.f_blocks) * unit)
    }
}
