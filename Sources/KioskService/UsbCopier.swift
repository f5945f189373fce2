import Foundation
import Glibc
import KioskCore
import Logging
import SystemPackage

/// Copy mode: the media files of a stick, in its folders too, copied into `usb.copy_to` with
/// the stick's folders mirrored (`UsbCopyPlan` decides what; names are paths relative to the
/// stick). Each copy is written under a hidden temporary name, fsynced, given the
/// source's modification time and renamed into place, so a file in the folder is always whole
/// (a stick pulled mid-copy leaves the old file or nothing, and the temporary is removed). A
/// file that would leave less than `min_free` is not copied (one line). Media files the stick
/// does not have are removed from the folder once everything was copied: the folder mirrors
/// the last stick. Nothing outside the folder is touched.
package struct UsbCopier {
    package let config: UsbConfig
    package let logger: Logger

    package func copy(from volume: UsbVolume) {
        let folder = config.copyTo
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            logger.error("USB copy: cannot create \(folder): \(error.localizedDescription); the stick is not copied")
            return
        }
        removeTemporaries(in: folder)
        guard let space = DiskSpace.of(folder) else {
            logger.error("USB copy: cannot read the free space of \(folder): \(Errno(rawValue: errno).description); the stick is not copied")
            return
        }
        let available = space.free
        let plan = UsbCopyPlan(stick: Self.mediaFiles(in: volume.mountPoint), folder: Self.mediaFiles(in: folder),
                               available: available, minFree: Int64(config.minFree))
        var failures = plan.tooLarge.count
        for (file, free) in plan.tooLarge {
            logger.error("USB copy: \(file.name) (\(file.size) bytes) not copied: it would leave less than \(config.minFree) bytes free in \(folder) (\(free) free)")
        }
        for file in plan.copy {
            do {
                try copyFile(file, from: volume.mountPoint, to: folder)
                logger.notice("USB copy: \(file.name) copied to \(folder)")
            } catch {
                failures += 1
                logger.error("USB copy: \(file.name) not copied: \(error)")
            }
        }
        // The last stick's list goes even when a copy failed: left, it would play instead of
        // what this stick holds. Its media stay until every copy succeeded.
        for name in plan.stale where failures == 0 || PlaylistFile.isNamed(name) {
            let path = WatchedFolders.path(in: folder, name: name)
            if unlink(path) == 0 { logger.notice("USB copy: \(name) removed from \(folder) (not on the new stick)") }
        }
    }

    private struct CopyError: Error, CustomStringConvertible {
        let description: String
    }

    private func copyFile(_ file: UsbCopyPlan.File, from source: String, to folder: String) throws {
        let from = WatchedFolders.path(in: source, name: file.name)
        let target = WatchedFolders.path(in: folder, name: file.name)
        // Beside its target, in the stick's folder mirrored here.
        let subfolder = (target as NSString).deletingLastPathComponent
        let temporary = WatchedFolders.path(in: subfolder, name: UsbCopyPlan.temporaryName(for: (file.name as NSString).lastPathComponent))
        do {
            try FileManager.default.createDirectory(atPath: subfolder, withIntermediateDirectories: true)
        } catch {
            throw CopyError(description: "cannot create \(subfolder): \(error.localizedDescription)")
        }
        func failure(_ step: String, _ error: any Error) -> CopyError {
            CopyError(description: "\(step): \((error as? Errno).map { $0.description } ?? "\(error)")")
        }
        let input: FileDescriptor, output: FileDescriptor
        // Not blocking (a FIFO put there since the listing must not hang the copy), and checked
        // once open: a regular file of the stick's own file system, whatever changed meanwhile.
        do { input = try FileDescriptor.open(from, .readOnly, options: [.closeOnExec, .nonBlocking]) } catch {
            throw failure("cannot open \(from)", error)
        }
        defer { try? input.close() }
        var opened = stat(), stick = stat()
        guard fstat(input.rawValue, &opened) == 0, stat(source, &stick) == 0, (opened.st_mode & S_IFMT) == S_IFREG,
              opened.st_dev == stick.st_dev else {
            throw CopyError(description: "\(from) is no longer a file of the stick")
        }
        do {
            output = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch { throw failure("cannot create \(temporary)", error) }
        var written = false
        defer {
            try? output.close()
            if !written { unlink(temporary) }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count: Int
            do { count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) } } catch { throw failure("cannot read \(from)", error) }
            if count == 0 { break }
            do { _ = try buffer[..<count].withUnsafeBytes { try output.writeAll($0) } } catch { throw failure("cannot write \(temporary)", error) }
        }
        guard fsync(output.rawValue) == 0 else { throw CopyError(description: "cannot fsync \(temporary): \(Errno(rawValue: errno).description)") }
        // The access time left alone (UTIME_OMIT, a macro Swift does not import); the source's
        // modification time: the next plug of the same stick finds the copy unchanged.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: Int(file.modified), tv_nsec: 0)]
        futimens(output.rawValue, &times)
        do {
            try AtomicFile.commit(temporary, to: target, synced: true)
        } catch {
            throw CopyError(description: "\(error)")
        }
        written = true
    }

    /// Temporaries a power cut or a pulled stick left behind (kiosk's own names only), in the
    /// folder and the stick's folders mirrored in it.
    private func removeTemporaries(in folder: String) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".kiosk-copy.") && name.hasSuffix(".tmp") { unlink(WatchedFolders.path(in: folder, name: relative)) }
        }
    }

    /// Regular media files and playlist files of `folder` and its subfolders (`MediaTree`; links
    /// out of it left out), named by their path relative to it: a stick's `show.m3u` plays from
    /// the copy folder as from the stick (`UsbStickItems`), with the lists it names.
    package static func mediaFiles(in folder: String) -> [UsbCopyPlan.File] {
        // Inside the folder only: a stick's `menu.mp4 -> /etc/shadow` is not copied onto the box.
        let tree = MediaTree.list(folder, fileSystem: ConfinedFileSystem(root: folder)) { name in
            WatchedFolders.isCandidate(name: name) || (!name.hasPrefix(".") && PlaylistFile.isNamed(name))
        }
        // The expander's paths are the folder's, joined: its own prefix comes off.
        let prefix = WatchedFolders.path(in: folder, name: "x").dropLast()
        return tree.files.compactMap { path -> UsbCopyPlan.File? in
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, path.hasPrefix(prefix) else { return nil }
            let relative = String(path.dropFirst(prefix.count))
            return UsbCopyPlan.File(name: relative, size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec))
        }
    }
}
