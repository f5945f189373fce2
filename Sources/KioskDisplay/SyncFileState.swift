import CDRM
import Glibc

/// Where a sync_file (a fence the kernel handed out: a writeback picture's, a flip's) stands.
/// A fence can be signalled with an error: a writeback job the driver failed signals, and its
/// buffer holds no picture, so "it signalled" alone is not "it arrived".
enum SyncFileState: Equatable, Sendable {
    case pending
    case signalled
    /// Signalled with this error (an errno).
    case failed(errno: Int32)
    /// The kernel could not say (no sync_file, an old kernel): the errno of the query.
    case unknown(errno: Int32)

    /// From SYNC_IOC_FILE_INFO's `status`: 1 signalled, 0 pending, below 0 -errno.
    init(status: Int32) {
        switch status {
        case 0: self = .pending
        case 1...: self = .signalled
        default: self = .failed(errno: status == Int32.min ? EIO : -status)
        }
    }

    /// Asks the kernel about `fd`.
    static func of(_ fd: Int32) -> SyncFileState {
        var failed: Int32 = 0
        let status = kiosk_sync_file_status(fd, &failed)
        return failed != 0 ? .unknown(errno: errno) : SyncFileState(status: status)
    }
}
