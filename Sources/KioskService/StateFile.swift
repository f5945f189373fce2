import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Small files that must survive a power loss whole: written to a temporary file in the same
/// directory, fsynced, renamed over the old one, and the directory fsynced so the rename
/// itself is on disk. A reader then finds the old contents or the new, never a mix.
package enum StateFile {
    package struct Failure: Error, CustomStringConvertible {
        let step: String
        let path: String
        let code: Int32
        package var description: String { "\(step) \(path): \(String(cString: strerror(code)))" }

        init(step: String, path: String, code: Int32) {
            self.step = step; self.path = path; self.code = code
        }

        init(step: String, path: String, _ error: any Error) {
            self.init(step: step, path: path, code: (error as? Errno)?.rawValue ?? EIO)
        }
    }

    package static func writeAtomically(_ data: Data, to path: String) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".tmp"
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                         permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw Failure(step: "cannot create", path: temporary, error)
        }
        do {
            _ = try fd.writeAll(data)
        } catch {
            try? fd.close()
            unlink(temporary)
            throw Failure(step: "cannot write", path: temporary, error)
        }
        if fsync(fd.rawValue) != 0 {
            let code = errno
            try? fd.close()
            unlink(temporary)
            throw Failure(step: "cannot fsync", path: temporary, code: code)
        }
        try? fd.close()
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(step: "cannot rename onto", path: path, code: code)
        }
        let folder: FileDescriptor
        do {
            folder = try FileDescriptor.open(directory.isEmpty ? "." : directory, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw Failure(step: "cannot open", path: directory, error)
        }
        defer { try? folder.close() }
        guard fsync(folder.rawValue) == 0 else { throw Failure(step: "cannot fsync", path: directory, code: errno) }
    }
}
