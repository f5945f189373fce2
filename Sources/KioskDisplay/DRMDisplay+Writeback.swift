import CDRM
import Glibc
import KioskCore

/// Screenshots of what the display composes, read back through the writeback connector the
/// modeset attached (Writeback.swift): the video plane, the primary plane and anything a
/// driver adds, exactly as scanned out, in the panel's orientation.
extension DRMDisplay {
    /// How screenshots are taken, for the log: read back, or composed by kiosk (and why).
    public var screenshotSource: String {
        lock.withLock {
            if let writebackConnector, writebackRefusal == nil {
                if let last = lastReadBack, let commits = presenter.kind.atomicCommits?.commitsMade,
                   ReadBackStep.next(last: (last.commitsAfter, last.hasArrived), commitsNow: commits) == .compose {
                    return "composed by kiosk: writeback connector \(writebackConnector.id)'s last picture has not come "
                        + "(a commit overtook it; vkms then drops it for good)"
                }
                return "read back through writeback connector \(writebackConnector.id) (\(writebackConnector.name))"
            }
            return "composed by kiosk (" + (writebackRefusal ?? "\(driverName) has no writeback connector for CRTC \(crtcID)") + ")"
        }
    }

    /// Asks the driver for the picture on screen; nil when this display cannot (no writeback
    /// connector, or the driver refused it once: remembered, the caller composes). Between
    /// frames: a flip still queued lands first, so the picture is the one on screen. The wait
    /// for it is the caller's (`ScreenReadBack.read`), off the presenter thread.
    public func beginReadBack() throws -> ScreenReadBack? {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard let connector = writebackConnector, writebackRefusal == nil,
              let atomic = presenter.kind.atomicCommits else { return nil }
        if pendingIndex != nil { _ = try finishPendingFlip() }
        // A paused screen shot again, or a shot asked again while a starved driver still writes
        // the last one, shares it (CI: every shot of a paused vkms guest timed out once one
        // had, each commit queued behind the last). An overtaken picture still to come is
        // composed by kiosk until it comes, which on vkms is never: only a later job would
        // signal it (`screenshotSource` says so).
        let last = lastReadBack
        switch ReadBackStep.next(last: last.map { ($0.commitsAfter, $0.hasArrived) }, commitsNow: atomic.commitsMade) {
        case .shareLast: return last
        case .compose: return nil
        case .commitNew:
            last?.releaseKernelObjects()
            lastReadBack = nil
        }
        // A buffer that cannot be had now (memory) fails this shot only; a refused commit is
        // the driver's answer for good.
        let buffer = try DumbBuffer(card: card, size: mode.size)
        do {
            let readBack = try WritebackReadBack(card: card, connector: connector, buffer: buffer, atomic: atomic)
            lastReadBack = readBack
            // vkms composes the picture in a worker after the vblank and drops it if a commit
            // comes first: the next flip waits for it up to two refreshes (a starved guest's
            // worker that takes longer loses it: composed by kiosk from then on, above).
            // Hardware writes it during the scanout and drops nothing: no flip waits there.
            if driverName == "vkms" {
                let bound = 2 * refreshInterval.seconds
                atomic.beforeNextCommit = { [weak readBack] in _ = readBack?.waitForPicture(upTo: bound) }
            }
            return readBack
        } catch {
            writebackRefusal = "writeback connector \(connector.id) failed: \(error)"
            return nil
        }
    }
}
