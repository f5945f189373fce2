import CDRM
import Glibc
import KioskCore

/// What the CRTC kiosk takes over showed before (usually the text console's framebuffer), read
/// at open so close can hand the screen back as it was.
struct SavedDisplayState {
    let crtcID: UInt32
    let connectorID: UInt32
    /// The framebuffer scanned out before; 0 when the CRTC was off.
    let framebufferID: UInt32
    /// Where in that framebuffer the scanout started (fbdev panning).
    let x: UInt32
    let y: UInt32
    /// The mode it ran; nil when the CRTC was off.
    let mode: DisplayMode?
    /// The connector was driven by this CRTC (restore reattaches it).
    let connectorWasOnCRTC: Bool
    /// The primary plane's "rotation" value before, when it has that property.
    let planeRotation: UInt64?

    static func capture(card: Card, crtcID: UInt32, connector: DisplayConnectorInfo,
                        encoders: [DisplayEncoderInfo], planeID: UInt32?) -> SavedDisplayState {
        var framebuffer: UInt32 = 0, x: UInt32 = 0, y: UInt32 = 0
        var mode: DisplayMode?
        if let crtc = drmModeGetCrtc(card.fd.rawValue, crtcID) {
            framebuffer = crtc.pointee.buffer_id
            x = crtc.pointee.x
            y = crtc.pointee.y
            if crtc.pointee.mode_valid != 0 { mode = DisplayMode(crtc.pointee.mode) }
            drmModeFreeCrtc(crtc)
        }
        let encoder = encoders.first { $0.id == connector.currentEncoderID }
        let rotation = planeID.flatMap { id in
            card.properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE)).first { $0.name == "rotation" }?.value
        }
        return SavedDisplayState(crtcID: crtcID, connectorID: connector.id, framebufferID: framebuffer, x: x, y: y,
                                 mode: mode, connectorWasOnCRTC: encoder?.currentCRTCID == crtcID,
                                 planeRotation: rotation)
    }

    /// The mode to set back, when there is a picture to restore: the CRTC ran a mode with a
    /// framebuffer on this connector. Otherwise restore switches the CRTC off (a CRTC with a
    /// mode but no connector cannot be expressed with SetCrtc, and shows nothing anyway).
    var restorableMode: DisplayMode? {
        framebufferID != 0 && connectorWasOnCRTC ? mode : nil
    }

    /// Restores with drmModeSetCrtc: the legacy path, and the fallback of the atomic one.
    func restoreWithSetCrtc(card: Card) throws(DRMError) {
        let result: Int32
        if var info = restorableMode?.drmModeInfo {
            var connector = connectorID
            result = drmModeSetCrtc(card.fd.rawValue, crtcID, framebufferID, x, y, &connector, 1, &info)
        } else {
            result = drmModeSetCrtc(card.fd.rawValue, crtcID, 0, 0, 0, nil, 0, nil)
        }
        guard result == 0 else {
            throw presentFailure(card, what: "restoring the previous screen", call: "drmModeSetCrtc", errno: errno)
        }
    }
}
