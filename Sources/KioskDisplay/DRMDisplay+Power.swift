import KioskCore

/// Display power through KMS (`display.power`, the control socket's `display_power`): the
/// CRTC's ACTIVE property on atomic drivers, the connector's DPMS property on legacy ones.
/// The mode, the buffers and master stay: switching on shows the last picture again at once,
/// with no modeset from scratch and no restart. Panels and most monitors go to standby on the
/// lost signal; TVs often do not (HDMI-CEC is the other control, KioskCEC).
extension DRMDisplay {
    /// Whether the CRTC scans out; false after `setPower(on: false)`.
    public var isScanningOut: Bool { lock.withLock { isPoweredOn } }

    /// Switches the screen off or on; true: the display has the control (KMS always does).
    /// While off, `present`, `submit` and `presentDirect` throw `DRMError.displayOff`.
    public func setPower(on: Bool) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !isClosed else { throw DRMError.closed }
        guard on != isPoweredOn else { return true }
        // A commit in flight makes the ACTIVE change fail with EBUSY; let it land first.
        if pendingIndex != nil { _ = try finishPendingFlip() }
        if !on { try hideVideoPlane() }   // the video plane's frames are freed with the item
        try presenter.setActive(on)
        isPoweredOn = on
        if on {
            // The panel's refresh grid starts anew where it was switched on.
            vblank = VblankPredictor(refreshInterval: refreshInterval.seconds, lastVblank: card.lastVblank(crtcID: crtcID))
        }
        return true
    }
}
