import CDRM
import Glibc
import KioskCore

/// What a presenter drives: one connector on one CRTC through its primary plane, with buffers
/// of `bufferSize` (the mode's size, transposed when the plane rotates 90°/270°).
struct ScanoutTarget {
    let connectorID: UInt32
    let crtcID: UInt32
    /// The primary plane; nil without universal planes (legacy drivers).
    let planeID: UInt32?
    let mode: DisplayMode
    let bufferSize: PixelSize
    /// Clockwise turn the plane applies; `.none` when it is left to the CPU.
    let planeRotation: Rotation
    /// Whether the plane has a "rotation" property (set explicitly then, clearing leftovers).
    let planeHasRotationProperty: Bool
    /// Another CRTC that drives the connector now and must be switched off (atomic only).
    let previousCRTCOfConnector: UInt32?
    /// Overlay and cursor planes another client left on this CRTC (atomic only).
    let planesToDisable: [UInt32]
    /// A writeback connector the modeset attaches to the CRTC, for screenshots of what the
    /// display composes (atomic only; Writeback.swift).
    var writebackConnectorID: UInt32? = nil
}

/// The two ways to put a framebuffer on screen: atomic commits, or the legacy SetCrtc/PageFlip
/// calls for drivers without atomic support.
protocol ScanoutPresenter: AnyObject {
    /// Which of the two this is; the atomic one is handed out, for what only it can do.
    var kind: ScanoutPresenterKind { get }
    /// Sets the mode and shows `framebufferID`; blocks until done.
    func modeset(framebufferID: UInt32) throws(DRMError)
    /// Asks for `framebufferID` at the next refresh; a flip event with `userData` follows.
    func queueFlip(framebufferID: UInt32, userData: UnsafeMutableRawPointer) throws(DRMError)
    /// Switches the screen off (the picture stays attached, nothing is scanned out) or on again.
    func setActive(_ active: Bool) throws(DRMError)
    /// Puts back what the CRTC showed before kiosk took it.
    func restore(_ saved: SavedDisplayState) throws(DRMError)
    /// Frees kernel objects the presenter created (mode blobs).
    func release()
}

/// What a display's presenter can do beyond flipping the primary plane. Only atomic commits
/// set several planes at once: the direct video path (a video plane, black behind it) and
/// leaving it (the XRGB flip that also switches the video plane off) need them.
enum ScanoutPresenterKind {
    case atomic(AtomicPresenter)
    case legacy

    /// The presenter's atomic commits, where it has them.
    var atomicCommits: AtomicPresenter? {
        if case .atomic(let presenter) = self { return presenter }
        return nil
    }
}

extension ScanoutPresenter {
    /// Atomic or legacy, for the log and the display's `api`.
    var api: DRMDisplayOptions.API {
        switch kind {
        case .atomic: .atomic
        case .legacy: .legacy
        }
    }
}

/// A failed modeset or flip: EACCES/EPERM mean master was lost or never held.
func presentFailure(_ card: Card, what: String, call: String, errno code: Int32) -> DRMError {
    DRMError.isNotMaster(code) ? .anotherMaster(path: card.path, holder: card.masterHolder())
        : .callFailed(what: what, call: call, errno: code)
}

/// drmModeSetCrtc, drmModePageFlip: what every KMS driver offers.
final class LegacyPresenter: ScanoutPresenter {
    private let card: Card
    private let target: ScanoutTarget
    var kind: ScanoutPresenterKind { .legacy }

    init(card: Card, target: ScanoutTarget) {
        self.card = card
        self.target = target
    }

    func modeset(framebufferID: UInt32) throws(DRMError) {
        var connector = target.connectorID
        var mode = target.mode.drmModeInfo
        guard drmModeSetCrtc(card.fd.rawValue, target.crtcID, framebufferID, 0, 0, &connector, 1, &mode) == 0 else {
            throw presentFailure(card, what: "setting mode \(target.mode)", call: "drmModeSetCrtc", errno: errno)
        }
    }

    func queueFlip(framebufferID: UInt32, userData: UnsafeMutableRawPointer) throws(DRMError) {
        guard drmModePageFlip(card.fd.rawValue, target.crtcID, framebufferID, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData) == 0 else {
            throw presentFailure(card, what: "queueing a page flip", call: "drmModePageFlip", errno: errno)
        }
    }

    /// The connector's DPMS property: the legacy drivers' power switch (on atomic drivers the
    /// kernel turns the same call into the CRTC's ACTIVE).
    func setActive(_ active: Bool) throws(DRMError) {
        let dpms = card.properties(of: target.connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)).first { $0.name == "DPMS" }
        guard let dpms else { throw .missingProperty(object: "connector \(target.connectorID)", name: "DPMS") }
        let value = UInt64(active ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        guard drmModeConnectorSetProperty(card.fd.rawValue, target.connectorID, dpms.id, value) == 0 else {
            throw presentFailure(card, what: "switching the screen \(active ? "on" : "off")",
                                 call: "drmModeConnectorSetProperty(DPMS)", errno: errno)
        }
    }

    func restore(_ saved: SavedDisplayState) throws(DRMError) {
        try saved.restoreWithSetCrtc(card: card)
    }

    func release() {}
}
