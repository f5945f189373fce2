import Glibc
import Testing
@testable import KioskDisplay

/// A fence's state from SYNC_IOC_FILE_INFO: a writeback job the driver failed signals with an
/// error, which is no picture. (The bed's vkms never fails one; its pictures, read through
/// this, are test_planes_vkms' shots.)
@Test func aFenceStatusSaysPendingSignalledOrTheErrorItFailedWith() {
    #expect(SyncFileState(status: 0) == .pending)
    #expect(SyncFileState(status: 1) == .signalled)
    #expect(SyncFileState(status: -ECANCELED) == .failed(errno: ECANCELED))
    #expect(SyncFileState(status: -EIO) == .failed(errno: EIO))
    #expect(SyncFileState(status: Int32.min) == .failed(errno: EIO))   // not negated past Int32
}

@Test func aDescriptorThatIsNoSyncFileIsUnknownNotFailed() {
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]); close(ends[1]) }
    #expect(SyncFileState.of(ends[0]) == .unknown(errno: ENOTTY))
    #expect(SyncFileState.of(-1) == .unknown(errno: EBADF))
}
