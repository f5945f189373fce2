import CDRM
import Glibc
import KioskCore

/// Atomic commits: one modeset with DRM_MODE_ATOMIC_ALLOW_MODESET, then flips that change the
/// primary plane's FB_ID with NONBLOCK | PAGE_FLIP_EVENT. Property ids are looked up by name.
final class AtomicPresenter: ScanoutPresenter {
    private let card: Card
    private let target: ScanoutTarget
    private let planeID: UInt32
    private let connectorProps: [String: UInt32]
    private let crtcProps: [String: UInt32]
    private let planeProps: [String: UInt32]
    private var modeBlobs: [UInt32] = []
    /// The writeback connector's CRTC_ID property, and whether the modeset attached it (a
    /// driver may refuse it: the display then works without, and screenshots are composed).
    private let writebackCRTCProperty: UInt32?
    private(set) var writebackAttached = false
    /// Commits that changed the display (not TEST_ONLY ones): a screenshot read back after the
    /// last of them is still what the screen shows (DRMDisplay+Writeback.swift).
    private(set) var commitsMade: UInt64 = 0
    /// Run once before the next commit that changes the display: a read-back's brief wait for
    /// its picture, which vkms drops when a commit overtakes it.
    var beforeNextCommit: (() -> Void)?
    var kind: ScanoutPresenterKind { .atomic(self) }

    init(card: Card, target: ScanoutTarget) throws(DRMError) {
        guard card.hasAtomic, let planeID = target.planeID else { throw .atomicUnsupported(path: card.path) }
        self.card = card
        self.target = target
        self.planeID = planeID
        connectorProps = Self.ids(card, target.connectorID, UInt32(DRM_MODE_OBJECT_CONNECTOR))
        crtcProps = Self.ids(card, target.crtcID, UInt32(DRM_MODE_OBJECT_CRTC))
        planeProps = Self.ids(card, planeID, UInt32(DRM_MODE_OBJECT_PLANE))
        writebackCRTCProperty = target.writebackConnectorID.flatMap {
            Self.ids(card, $0, UInt32(DRM_MODE_OBJECT_CONNECTOR))["CRTC_ID"]
        }
        try require(connectorProps, ["CRTC_ID"], object: "connector \(target.connectorID)")
        try require(crtcProps, ["MODE_ID", "ACTIVE"], object: "CRTC \(target.crtcID)")
        try require(planeProps, ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H",
                                 "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"], object: "plane \(planeID)")
        if target.planeRotation != .none {
            try require(planeProps, ["rotation"], object: "plane \(planeID)")
        }
    }

    private static func ids(_ card: Card, _ object: UInt32, _ type: UInt32) -> [String: UInt32] {
        Dictionary(card.properties(of: object, type: type).map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
    }

    private func require(_ props: [String: UInt32], _ names: [String], object: String) throws(DRMError) {
        if let missing = names.first(where: { props[$0] == nil }) { throw .missingProperty(object: object, name: missing) }
    }

    func modeset(framebufferID: UInt32) throws(DRMError) {
        let blob = try createModeBlob(target.mode)
        let size = target.bufferSize, mode = target.mode.size
        var request = AtomicRequest()
        if let old = target.previousCRTCOfConnector, old != target.crtcID {
            request.add(old, crtcProps["ACTIVE"]!, 0)
            request.add(old, crtcProps["MODE_ID"]!, 0)
        }
        request.add(target.connectorID, connectorProps["CRTC_ID"]!, UInt64(target.crtcID))
        request.add(target.crtcID, crtcProps["MODE_ID"]!, UInt64(blob))
        request.add(target.crtcID, crtcProps["ACTIVE"]!, 1)
        addPlane(&request, framebufferID: framebufferID, crtcID: target.crtcID,
                 source: PixelRect(size: size), destination: PixelRect(size: mode),
                 rotation: target.planeHasRotationProperty ? PlaneRotationSupport.drmValue(for: target.planeRotation) : nil)
        for other in target.planesToDisable {
            let props = Self.ids(card, other, UInt32(DRM_MODE_OBJECT_PLANE))
            if let fb = props["FB_ID"], let crtc = props["CRTC_ID"] {
                request.add(other, fb, 0)
                request.add(other, crtc, 0)
            }
        }
        let flags = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
        if let writeback = target.writebackConnectorID, let property = writebackCRTCProperty {
            // Attached now, in the one modeset: attaching it later would be another modeset.
            var withWriteback = request
            withWriteback.add(writeback, property, UInt64(target.crtcID))
            do {
                try commit(withWriteback, flags: flags, userData: nil, what: "setting mode \(target.mode) with writeback")
                writebackAttached = true
                return
            } catch {
                // Refused with the writeback connector: the mode alone below.
            }
        }
        try commit(request, flags: flags, userData: nil, what: "setting mode \(target.mode)")
    }

    func queueFlip(framebufferID: UInt32, userData: UnsafeMutableRawPointer) throws(DRMError) {
        var request = AtomicRequest()
        request.add(planeID, planeProps["FB_ID"]!, UInt64(framebufferID))
        try commit(request, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                   userData: userData, what: "queueing a page flip")
    }

    /// The CRTC's ACTIVE property: off keeps the mode and the planes (DPMS off, as the kernel
    /// calls it), so on needs nothing else. Blocking: no flip event follows.
    func setActive(_ active: Bool) throws(DRMError) {
        var request = AtomicRequest()
        request.add(target.crtcID, crtcProps["ACTIVE"]!, active ? 1 : 0)
        try commit(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil,
                   what: "switching the screen \(active ? "on" : "off")")
    }

    /// A flip of the primary plane that also changes other planes (the video plane on or off).
    func queueFlip(framebufferID: UInt32, userData: UnsafeMutableRawPointer, alsoSetting other: AtomicRequest) throws(DRMError) {
        var request = AtomicRequest()
        request.add(planeID, planeProps["FB_ID"]!, UInt64(framebufferID))
        request.entries += other.entries
        try commit(request, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT),
                   userData: userData, what: "queueing a page flip")
    }

    /// The primary plane's part of a commit: show `framebufferID` (its rectangles stay).
    func primaryRequest(framebufferID: UInt32) -> AtomicRequest {
        var request = AtomicRequest()
        request.add(planeID, planeProps["FB_ID"]!, UInt64(framebufferID))
        return request
    }

    func restore(_ saved: SavedDisplayState) throws(DRMError) {
        var request = AtomicRequest()
        if writebackAttached, let writeback = target.writebackConnectorID, let property = writebackCRTCProperty {
            request.add(writeback, property, 0)
        }
        if let mode = saved.restorableMode {
            let blob = try createModeBlob(mode)
            request.add(target.connectorID, connectorProps["CRTC_ID"]!, UInt64(target.crtcID))
            request.add(target.crtcID, crtcProps["MODE_ID"]!, UInt64(blob))
            request.add(target.crtcID, crtcProps["ACTIVE"]!, 1)
            addPlane(&request, framebufferID: saved.framebufferID, crtcID: target.crtcID,
                     source: PixelRect(x: Int(saved.x), y: Int(saved.y), width: mode.size.width, height: mode.size.height),
                     destination: PixelRect(size: mode.size),
                     rotation: target.planeHasRotationProperty ? (saved.planeRotation ?? PlaneRotationSupport.rotate0) : nil)
        } else {
            // Nothing was shown: switch the pipe off as it was.
            request.add(target.connectorID, connectorProps["CRTC_ID"]!, 0)
            request.add(target.crtcID, crtcProps["MODE_ID"]!, 0)
            request.add(target.crtcID, crtcProps["ACTIVE"]!, 0)
            request.add(planeID, planeProps["FB_ID"]!, 0)
            request.add(planeID, planeProps["CRTC_ID"]!, 0)
        }
        do {
            try commit(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), userData: nil, what: "restoring the previous screen")
        } catch {
            // Some drivers reject the old framebuffer through atomic checks (pitch, offsets)
            // that the legacy path is lenient about; try that before giving up.
            try saved.restoreWithSetCrtc(card: card)
        }
    }

    func release() {
        for blob in modeBlobs { _ = drmModeDestroyPropertyBlob(card.fd.rawValue, blob) }
        modeBlobs.removeAll()
    }

    private func addPlane(_ request: inout AtomicRequest, framebufferID: UInt32, crtcID: UInt32,
                          source: PixelRect, destination: PixelRect, rotation: UInt64?) {
        let p = planeProps
        request.add(planeID, p["FB_ID"]!, UInt64(framebufferID))
        request.add(planeID, p["CRTC_ID"]!, UInt64(crtcID))
        // Source coordinates are 16.16 fixed point.
        request.add(planeID, p["SRC_X"]!, UInt64(source.x) << 16)
        request.add(planeID, p["SRC_Y"]!, UInt64(source.y) << 16)
        request.add(planeID, p["SRC_W"]!, UInt64(source.width) << 16)
        request.add(planeID, p["SRC_H"]!, UInt64(source.height) << 16)
        request.add(planeID, p["CRTC_X"]!, UInt64(bitPattern: Int64(destination.x)))
        request.add(planeID, p["CRTC_Y"]!, UInt64(bitPattern: Int64(destination.y)))
        request.add(planeID, p["CRTC_W"]!, UInt64(destination.width))
        request.add(planeID, p["CRTC_H"]!, UInt64(destination.height))
        if let rotation, let id = p["rotation"] { request.add(planeID, id, rotation) }
    }

    private func createModeBlob(_ mode: DisplayMode) throws(DRMError) -> UInt32 {
        var info = mode.drmModeInfo
        var blob: UInt32 = 0
        guard drmModeCreatePropertyBlob(card.fd.rawValue, &info, MemoryLayout<drmModeModeInfo>.size, &blob) == 0 else {
            throw .callFailed(what: "passing mode \(mode) to the kernel", call: "drmModeCreatePropertyBlob", errno: errno)
        }
        modeBlobs.append(blob)
        return blob
    }

    /// One atomic commit of `request` (also TEST_ONLY ones, from the direct video path).
    func commit(_ request: AtomicRequest, flags: UInt32, userData: UnsafeMutableRawPointer?,
                        what: String) throws(DRMError) {
        guard let req = drmModeAtomicAlloc() else {
            throw .callFailed(what: what, call: "drmModeAtomicAlloc", errno: ENOMEM)
        }
        defer { drmModeAtomicFree(req) }
        if flags & UInt32(DRM_MODE_ATOMIC_TEST_ONLY) == 0, let wait = beforeNextCommit {
            beforeNextCommit = nil
            wait()
        }
        for (object, property, value) in request.entries {
            guard drmModeAtomicAddProperty(req, object, property, value) >= 0 else {
                throw .callFailed(what: what, call: "drmModeAtomicAddProperty", errno: errno)
            }
        }
        guard drmModeAtomicCommit(card.fd.rawValue, req, flags, userData) == 0 else {
            throw presentFailure(card, what: what, call: "drmModeAtomicCommit", errno: errno)
        }
        if flags & UInt32(DRM_MODE_ATOMIC_TEST_ONLY) == 0 { commitsMade &+= 1 }
    }
}

/// The (object, property, value) triples of one commit, collected before libdrm sees them.
struct AtomicRequest {
    var entries: [(UInt32, UInt32, UInt64)] = []
    mutating func add(_ object: UInt32, _ property: UInt32, _ value: UInt64) { entries.append((object, property, value)) }

    /// A commit's part that switches plane `plane` off: no framebuffer, no CRTC (`properties`:
    /// its property ids by name).
    static func switchingOff(plane: UInt32, properties: [String: UInt32]) -> AtomicRequest {
        var request = AtomicRequest()
        request.add(plane, properties["FB_ID"]!, 0)
        request.add(plane, properties["CRTC_ID"]!, 0)
        return request
    }
}
