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
            try writebackCapture!.capture(with: atomic, timeout: max(flipTimeout, 1), body)
            return true
        } catch {
            writebackRefusal = "writeback connector \(connector.id) failed: \(error)"
            writebackCapture?.destroy()
            writebackCapture = nil
            return false
        }
    }
}
