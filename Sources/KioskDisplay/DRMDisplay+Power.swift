import CDRM
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

    /// `card1-HDMI-A-1` (`sysfsConnectorName`) and its cable as the driver tells.
    /// Under the display's lock (the card's descriptor is not closed under it); a probe holds a
    /// frame back for as long as the driver takes, which it does only after a hotplug.
    public func connectorStates(probe: Bool) -> [(connector: String, status: ConnectorStatus?)] {
        let status = lock.withLock { isClosed ? nil : card.connectorStatus(id: connectorID, probe: probe) }
        return [(connector: sysfsConnectorName, status: status)]
    }

    /// A returning screen: where the driver says its link failed (the connector's `link-status`
    /// BAD, as DisplayPort and HDMI 2.x drivers set it when training fails; the kernel asks
    /// userspace for a modeset then) the mode is set anew, ACTIVE off and on, the planes and their
    /// framebuffers left as they were, so the last picture shows at once. A link the driver kept
    /// or trained again itself (GOOD) is left alone: a modeset would only blank it. Not while
    /// switched off: switching on sets the mode.
    public func screenReturned(connector: String) throws -> ScreenReturn {
        guard connector == sysfsConnectorName else { return .notMine }
        lock.lock(); defer { lock.unlock() }
        guard !isClosed, isPoweredOn else { return .switchedOff }
        let linkStatus = card.properties(of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)).first { $0.name == "link-status" }
        guard let linkStatus, linkStatus.value == UInt64(DRM_MODE_LINK_STATUS_BAD) else { return .linkGood }
        if pendingIndex != nil { _ = try finishPendingFlip() }
        try presenter.setActive(false)
        try presenter.setActive(true)
        vblank = VblankPredictor(refreshInterval: refreshInterval.seconds, lastVblank: card.lastVblank(crtcID: crtcID))
        return .modeSet
    }
}
