import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small files that must survive a power loss whole: written to a temporary file in the same
/// directory, fsynced, renamed over the old one, and the directory fsynced so the rename
/// itself is on disk. A reader then finds the old contents or the new, never a mix.
enum StateFile {
    struct Failure: Error, CustomStringConvertible {
        let step: String
        let path: String
        let code: Int32
        var description: String { "\(step) \(path): \(String(cString: strerror(code)))" }
    }

    static func writeAtomically(_ data: Data, to path: String) throws(Failure) {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(step: "cannot create", path: temporary, code: errno) }
        var written = 0
        let writeError: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let result = write(fd, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += result
            }
            return nil
        }
        if let writeError {
            close(fd)
            unlink(temporary)
            throw Failure(step: "cannot write", path: temporary, code: writeError)
        }
        if fsync(fd) != 0 {
            let code = errno
            close(fd)
            unlink(temporary)
            throw Failure(step: "cannot fsync", path: temporary, code: code)
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(step: "cannot rename onto", path: path, code: code)
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw Failure(step: "cannot open", path: directory, code: errno) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw Failure(step: "cannot fsync", path: directory, code: errno) }
    }
}
