import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

/// Files that a reader, or a power cut, must see whole or not at all (resume's state, a
/// manifest a server serves, a screenshot a client fetches, a copied clip a watcher plays): the
/// bytes go to a temporary name in the same directory, are fsynced, renamed over the target, and
/// the directory is fsynced so the rename itself is on disk. The one implementation of that
/// sequence; a writer that makes the temporary file itself (FFmpeg's muxer, a copy loop) uses
/// `commit`.
public enum AtomicFile {
    /// One failed step, naming the file and the system's reason.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let step: String
        public let path: String
        public let code: Int32
        public var description: String { "\(step) \(path): \(Errno(rawValue: code).description)" }

        public init(step: String, path: String, code: Int32) {
            self.step = step
            self.path = path
            self.code = code
        }
    }

    /// The temporary name beside `path` (".tmp" after it, so a watched folder's filter of
    /// temporaries of copies leaves it out).
    public static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Writes `bytes` to `path` whole: the old contents or the new, never a mix. `durable`
    /// false leaves out the fsyncs, for files a reader must see whole but a power cut may lose
    /// (a screenshot: no stall of the writing thread on a slow card).
    public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: mode_t = 0o644,
                             durable: Bool = true) throws(Failure) {
        let temporary = temporaryPath(for: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(step: "cannot create", path: temporary, code: errno) }
        // Exactly `mode`, whatever the umask is this moment: the control socket narrows the
        // process's umask for an instant while it binds (UnixSocket.swift), and a file created
        // then by another thread came out 0600.
        _ = fchmod(fd, mode)
        let data = Array(bytes)
        var offset = 0
        while offset < data.count {
            // Short writes continued, EINTR retried.
            let count = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : EIO
                close(fd)
                unlink(temporary)
                throw Failure(step: "cannot write", path: temporary, code: code)
            }
            offset += count
        }
        guard !durable || fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw Failure(step: "cannot fsync", path: temporary, code: code)
        }
        close(fd)
        try commit(temporary, to: path, synced: true, durable: durable)
    }

    public static func write(_ text: String, to path: String, mode: mode_t = 0o644, durable: Bool = true) throws(Failure) {
        try write(Array(text.utf8), to: path, mode: mode, durable: durable)
    }

    /// Renames a complete `temporary` over `path` and makes the rename durable. `synced`: the
    /// caller fsynced the file already; otherwise it is fsynced here first. The temporary is
    /// removed when the rename fails.
    public static func commit(_ temporary: String, to path: String, synced: Bool = false,
                              durable: Bool = true) throws(Failure) {
        if durable && !synced {
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Failure(step: "cannot open", path: temporary, code: errno) }
            let result = fsync(fd)
            let code = errno
            close(fd)
            guard result == 0 else {
                unlink(temporary)
                throw Failure(step: "cannot fsync", path: temporary, code: code)
            }
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(step: "cannot rename onto", path: path, code: code)
        }
        guard durable else { return }
        let directory = (path as NSString).deletingLastPathComponent
        let folder = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(step: "cannot open", path: directory, code: errno) }
        defer { close(folder) }
        guard fsync(folder) == 0 else { throw Failure(step: "cannot fsync", path: directory, code: errno) }
    }
}
