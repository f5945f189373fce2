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
                return "read back through writeback connector \(writebackConnector.id) (\(writebackConnector.name))"
            }
            return "composed by kiosk (" + (writebackRefusal ?? "\(driverName) has no writeback connector for CRTC \(crtcID)") + ")"
        }
    }

    /// Reads the screen back and lets `body` see it; false when this display cannot (no
    /// writeback connector, or the driver refused it once: remembered, the caller composes).
    /// Between frames: a flip still queued lands first, so the picture is the one on screen.
    public func readBack(_ body: (PixelBuffer) -> Void) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard isPoweredOn else { throw DRMError.displayOff }
        guard let connector = writebackConnector, writebackRefusal == nil,
              let atomic = presenter.kind.atomicCommits else { return false }
        if pendingIndex != nil { _ = try finishPendingFlip() }
        do {
            if writebackCapture == nil {
                writebackCapture = try WritebackCapture(card: card, connector: connector, size: mode.size)
            }
            // Longer than a flip may take: the driver composes the picture after the vblank
            // (vkms in a worker), and a screenshot is worth a wait where a frame is not.
            try writebackCapture!.capture(with: atomic, timeout: max(flipTimeout, 5), body)
            return true
        } catch .callFailed(_, "poll", ETIMEDOUT) {
            // Late, not refused: this shot is composed by kiosk (the caller logs it), the next
            // asks the driver again.
            throw DRMError.callFailed(what: "waiting for writeback connector \(connector.id)'s picture", call: "poll", errno: ETIMEDOUT)
        } catch {
            writebackRefusal = "writeback connector \(connector.id) failed: \(error)"
            writebackCapture?.destroy()
            writebackCapture = nil
            return false
        }
    }
}
