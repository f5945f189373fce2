import Foundation

/// What tells one version of a file from another: a file replaced (a new inode), rewritten (its
/// size or times) or another file at the same path. Nanosecond times: two writes within a
/// second differ.
public struct FileFingerprint: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var changed: Int64
    public var modified: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, changed: Int64, modified: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.changed = changed
        self.modified = modified
    }
}

/// The pictures counted in each GIF the expander was asked about (`StillSignature`), kept per
/// path for the version counted, so a folder's GIFs are read once, not at every expansion. A
/// count that could not be made (a GIF still being copied) is not kept. At most `capacity`
/// paths; past that it starts afresh (a count costs one read of the file again).
public final class GIFPictureCache: @unchecked Sendable {
    public static let capacity = 4096
    private let lock = NSLock()
    private var counts: [String: (fingerprint: FileFingerprint, pictures: Int)] = [:]

    public init() {}

    /// `path`'s picture count for this `fingerprint`: kept, or `counting()`'s (then kept).
    public func pictureCount(of path: String, fingerprint: FileFingerprint, counting: () -> Int?) -> Int? {
        if let kept = lock.withLock({ counts[path] }), kept.fingerprint == fingerprint { return kept.pictures }
        guard let pictures = counting() else { return nil }
        lock.withLock {
            if counts.count >= Self.capacity, counts[path] == nil { counts.removeAll(keepingCapacity: true) }
            counts[path] = (fingerprint, pictures)
        }
        return pictures
    }
}
