import Foundation
import KioskCore
#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// One line naming the path and why, for what the store could not do on disk.
public struct SyncStoreError: Error, CustomStringConvertible, Equatable {
    public var description: String
    init(_ path: String, _ what: String, errno code: Int32 = errno) {
        description = "\(path): \(what): \(Errno(rawValue: code).description)"
    }
    init(message: String) { description = message }
}

/// The content sync store on disk (layout: `SyncStoreLayout`). Every file that reaches
/// objects/ is whole and verified (fsynced, renamed in); a set is built beside the current one
/// and `current` swapped by rename(2) of a symlink, then the directory is fsynced, so a power cut
/// leaves the old set or the new one, never a mix.
public struct SyncStore: Sendable {
    public let layout: SyncStoreLayout

    public init(directory: String) { layout = SyncStoreLayout(directory: directory) }

    public func prepare() throws(SyncStoreError) {
        for path in [layout.directory, layout.objects, layout.partials, layout.sets] {
            try Self.makeDirectory(path)
        }
    }

    static func makeDirectory(_ path: String) throws(SyncStoreError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        if errno == ENOENT {
            try makeDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        }
        throw SyncStoreError(path, "cannot create the folder")
    }

    /// Takes the store for one pass: nil when another process (kiosk run's thread, a
    /// `kiosk sync --once`) holds it. Released by `unlock`, or when the process ends.
    public func lock() throws(SyncStoreError) -> Int32? {
        let fd = open(layout.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncStoreError(layout.lock, "cannot open") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            if errno == EWOULDBLOCK { return nil }
            throw SyncStoreError(layout.lock, "cannot lock")
        }
        return fd
    }

    public func unlock(_ fd: Int32) { close(fd) }

    // MARK: What is there

    public func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func objectHashes() -> Set<String> { Set(names(in: layout.objects).filter { $0.count == 64 }) }

    /// Bytes held by each partial download that can be resumed (it has a validator); a partial
    /// without one (torn before its validator was written) is fetched again from 0.
    public func resumableSizes() -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        for name in names(in: layout.partials) where name.count == 64 {
            if validator(name) != nil, let size = Self.size(of: layout.partial(name)) { sizes[name] = size }
        }
        return sizes
    }

    public static func size(of path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Free bytes for kiosk on the store's file system (statvfs' f_bavail).
    public func freeBytes() -> Int64? { DiskSpace.of(layout.directory)?.free }

    public func validator(_ sha256: String) -> String? { Self.readText(layout.validator(sha256)) }

    public func saveValidator(_ text: String?, for sha256: String) {
        guard let text else { unlink(layout.validator(sha256)); return }
        Self.writeText(text, to: layout.validator(sha256))
    }

    public func dropPartial(_ sha256: String) {
        unlink(layout.partial(sha256))
        unlink(layout.validator(sha256))
    }

    /// A whole, verified (and fsynced) partial becomes an object.
    public func commitPartial(_ sha256: String) throws(SyncStoreError) {
        guard rename(layout.partial(sha256), layout.object(sha256)) == 0 else {
            throw SyncStoreError(layout.partial(sha256), "cannot move it into objects/")
        }
        unlink(layout.validator(sha256))
        Self.syncDirectory(layout.objects)
    }

    // MARK: Sets

    /// The set `current` points to, nil before the first switch. Reads only the link.
    public func currentSetID() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(layout.current, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.split(separator: "/").last.map(String.init)
    }

    /// The id of the set a manifest makes: the hash of its names and hashes in order.
    public static func setID(of manifest: SyncManifest) -> String {
        let hasher = SHA256()
        // Titles too: a new title is a new set (the playlist shows it).
        for file in manifest.files { hasher.update(Array("\(file.name)\n\(file.sha256)\n\(file.title ?? "")\n".utf8)) }
        return String(hasher.finalHex().prefix(16))
    }

    /// Builds the set of `manifest` from objects/ (all must be there) and points `current` at
    /// it; then removes the other sets, the objects and the partials it does not use.
    @discardableResult
    public func switchTo(_ manifest: SyncManifest) throws(SyncStoreError) -> String {
        let id = Self.setID(of: manifest)
        let final = layout.set(id)
        if access(final, F_OK) != 0 {
            let building = final + ".building"
            removeTree(building)
            try Self.makeDirectory(building)
            for file in manifest.files {
                let slot = PathTextJoin.join(building, SyncStoreLayout.slotName(forFile: file.name))
                try Self.makeDirectory(slot)
                let target = PathTextJoin.join(slot, file.name)
                guard link(layout.object(file.sha256), target) == 0 else { throw SyncStoreError(target, "cannot link the object") }
                if let title = file.title { Self.writeText(title, to: PathTextJoin.join(slot, SyncStoreLayout.titleFileName)) }
                Self.syncDirectory(slot)
            }
            let order = manifest.files.map { SyncStoreLayout.slotName(forFile: $0.name) + "\n" }.joined()
            do { try AtomicFile.write(order, to: PathTextJoin.join(building, SyncStoreLayout.orderFileName)) } catch {
                throw SyncStoreError(building, "cannot write the set's order")
            }
            Self.syncDirectory(building)
            guard rename(building, final) == 0 else { throw SyncStoreError(building, "cannot rename the new set") }
            Self.syncDirectory(layout.sets)
        }
        let link = layout.current + ".new"
        unlink(link)
        guard symlink("sets/" + id, link) == 0 else { throw SyncStoreError(link, "cannot make the link") }
        guard rename(link, layout.current) == 0 else { throw SyncStoreError(layout.current, "cannot replace the link") }
        Self.syncDirectory(layout.directory)
        collectGarbage(keeping: manifest, set: id)
        return id
    }

    /// After a switch: what the current set does not use goes (a file still playing from an old
    /// set stays readable through its open descriptor).
    func collectGarbage(keeping manifest: SyncManifest, set id: String) {
        let used = Set(manifest.files.map(\.sha256))
        for name in names(in: layout.sets) where name != id { removeTree(layout.set(name)) }
        for name in names(in: layout.objects) where !used.contains(name) { unlink(layout.object(name)) }
        for name in names(in: layout.partials) {
            let sha = name.hasSuffix(".validator") ? String(name.dropLast(10)) : name
            if !used.contains(sha) || objectHashes().contains(sha) { unlink(PathTextJoin.join(layout.partials, name)) }
        }
    }

    func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in names(in: path) { removeTree(PathTextJoin.join(path, name)) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    // MARK: Small files

    static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let trimmed = text.trimmedLine
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whole or not at all (`AtomicFile`); a failure leaves the old file, which the next pass
    /// writes again.
    static func writeText(_ text: String, to path: String) {
        try? AtomicFile.write(text + "\n", to: path)
    }

    /// A small file's bytes (a key), nil when it cannot be read.
    public static func readWhole(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = fread(&buffer, 1, buffer.count, file)
            if got == 0 { break }
            bytes += buffer[0..<got]
            if bytes.count > 1 << 20 { return nil }
        }
        return bytes
    }

    /// The ETag of the manifest the current set came from; nil when none is known, or when it
    /// was saved for another set. It is saved after the switch, and a power cut between the two
    /// (the switch's rename durable, the ETag's not) left the old manifest's ETag beside the new
    /// set: a server that went back to the old manifest then answered 304 and the box stayed on
    /// the new set without a word (found by test_content_sync_power.py). So the line names its
    /// set, and an ETag for another set is no ETag.
    public func manifestETag() -> String? {
        guard let line = Self.readText(layout.manifestETag), let space = line.firstIndex(of: " ") else { return nil }
        let set = String(line[..<space])
        guard set == currentSetID() else { return nil }
        return String(line[line.index(after: space)...])
    }

    /// Saves `etag` as the ETag of the manifest of set `set` (nil forgets it), durably: the
    /// folder is fsynced after the rename.
    public func saveManifestETag(_ etag: String?, forSet set: String) {
        if let etag { Self.writeText(set + " " + etag, to: layout.manifestETag) } else { unlink(layout.manifestETag) }
        Self.syncDirectory((layout.manifestETag as NSString).deletingLastPathComponent)
    }

    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

enum PathTextJoin {
    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }
}

extension String {
    /// Without spaces, tabs, CR and LF at either end (header values, one-line files).
    var trimmedLine: String {
        var scalars = Substring(self).unicodeScalars
        let blank: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n"]
        while let last = scalars.last, blank.contains(last) { scalars.removeLast() }
        while let first = scalars.first, blank.contains(first) { scalars.removeFirst() }
        return String(scalars)
    }
}
