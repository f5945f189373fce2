import Glibc
import SystemPackage

/// Why the control socket could not be set up (or reached); one line naming the path.
public struct ControlSocketError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Thin wrappers over the Unix-socket system calls the server and `kiosk ctl` use.
enum UnixSocket {
    static func systemError(_ number: Int32 = errno) -> String { Errno(rawValue: number).description }

    /// A listening socket at `path`, mode 0600 from the moment it exists: the umask is narrowed
    /// around bind(), so no other user can connect in a window before a chmod. An existing path
    /// is replaced only when it is a stale socket of our own user; a path of another user, or
    /// one that is not a socket, or a socket another process still listens on is refused.
    /// The path appears only once the socket listens: it is bound under a name of its own
    /// beside `path`, listened on, then linked into place (link(2) never replaces: a second
    /// kiosk that started at the same moment gets EEXIST, as bind() gave it before). Bound at
    /// `path` itself, a client that waited for the file (scripts, `kiosk ctl`, the tests) could
    /// connect between bind() and listen() and be refused (ECONNREFUSED in CI, on a loaded host).
    static func listen(at path: String) throws(ControlSocketError) -> (fd: FileDescriptor, inode: ino_t) {
        try checkLength(path)
        var existing = stat()
        if lstat(path, &existing) == 0 {
            if existing.st_uid != geteuid() {
                throw ControlSocketError("control socket \(path): the path belongs to uid \(existing.st_uid), not to this user (uid \(geteuid())); refusing to use it")
            }
            guard existing.st_mode & S_IFMT == S_IFSOCK else {
                throw ControlSocketError("control socket \(path): the path exists and is not a socket; refusing to replace it")
            }
            if let probe = try? connect(to: path) {
                try? probe.close()
                throw ControlSocketError("control socket \(path): another process is listening on it (is kiosk already running?)")
            }
            unlink(path)   // stale: a socket of ours that nobody serves
        }
        let raw = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard raw >= 0 else { throw ControlSocketError("control socket \(path): socket(): \(systemError())") }
        let fd = FileDescriptor(rawValue: raw)
        // A path too long for a name beside it is bound in place, as before (a short window).
        let staging = stagingName(for: path)
        let bindPath = staging ?? path
        let previousMask = umask(0o177)
        let bound = withAddress(bindPath) { bind(fd.rawValue, $0, $1) }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            try? fd.close()
            throw ControlSocketError("control socket \(path): cannot create it: \(systemError(bindError))")
        }
        chmod(bindPath, 0o600)
        guard Glibc.listen(fd.rawValue, 128) == 0 else {
            let reason = systemError()
            try? fd.close()
            unlink(bindPath)
            throw ControlSocketError("control socket \(path): cannot listen: \(reason)")
        }
        if let staging {
            var linked = link(staging, path)
            var linkError = errno
            // A file system without hard links: renamed instead (it would replace a socket
            // made in the same instant; the check above saw none).
            if linked != 0, linkError == EPERM || linkError == EOPNOTSUPP || linkError == EMLINK {
                linked = rename(staging, path)
                linkError = errno
            }
            unlink(staging)
            guard linked == 0 else {
                try? fd.close()
                throw ControlSocketError(linkError == EEXIST
                    ? "control socket \(path): another process created it meanwhile (is kiosk already running?)"
                    : "control socket \(path): cannot put it in place: \(systemError(linkError))")
            }
        }
        var created = stat()
        guard lstat(path, &created) == 0 else {
            let reason = systemError()
            try? fd.close()
            throw ControlSocketError("control socket \(path): gone as soon as made: \(reason)")
        }
        return (fd, created.st_ino)
    }

    /// `.<name>.<pid>-<random>` in `path`'s directory (random: two containers' kiosks may both
    /// be pid 1 over one shared /run), or nil where that is too long for an address.
    private static func stagingName(for path: String) -> String? {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let staging = "\(directory).\(name).\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        return staging.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) ? staging : nil
    }

    /// O_NONBLOCK and FD_CLOEXEC (Glibc's accept4 and pipe2 are not visible to Swift).
    static func makeNonBlocking(_ fd: FileDescriptor) {
        _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC)
    }

    /// A blocking connection to the socket at `path`.
    static func connect(to path: String) throws(ControlSocketError) -> FileDescriptor {
        try checkLength(path)
        let raw = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw ControlSocketError("control socket \(path): socket(): \(systemError())") }
        let fd = FileDescriptor(rawValue: raw)
        guard withAddress(path, { Glibc.connect(fd.rawValue, $0, $1) }) == 0 else {
            let reason = systemError()
            try? fd.close()
            throw ControlSocketError("cannot connect to the control socket \(path): \(reason)")
        }
        return fd
    }

    /// Removes the socket file if it is still the one made by `listen` (same inode): a second
    /// kiosk that replaced it keeps its own.
    static func remove(_ path: String, inode: ino_t) {
        var current = stat()
        if lstat(path, &current) == 0, current.st_ino == inode, current.st_uid == geteuid() { unlink(path) }
    }

    private static func checkLength(_ path: String) throws(ControlSocketError) {
        let limit = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard !path.isEmpty, path.utf8.count < limit else {
            throw ControlSocketError("control socket \(path): the path must be 1 to \(limit - 1) bytes long")
        }
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
