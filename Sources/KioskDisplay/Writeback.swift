import CDRM
import Foundation
import Glibc
import KioskCore

/// A writeback connector: a connector that, instead of driving a screen, writes what its CRTC
/// composes (every plane, as scanned out) into a framebuffer. vkms, Rockchip and Mali-DP have
/// one per CRTC; vc4's TXP is a CRTC of its own (not the HDMI one kiosk drives), so it never
/// matches there. Listed only to clients that set DRM_CLIENT_CAP_WRITEBACK_CONNECTORS.
public struct WritebackConnectorInfo: Sendable, Codable, Hashable {
    public var id: UInt32
    public var name: String
    /// The CRTCs (bitmask of indices) it can be attached to, from its encoders.
    public var possibleCRTCs: UInt32
    /// The formats it writes (WRITEBACK_PIXEL_FORMATS).
    public var formats: [FourCC]

    /// Can write back the CRTC of index `crtcIndex` in a format kiosk reads (XRGB8888).
    func serves(crtcIndex: Int) -> Bool {
        crtcIndex < 32 && possibleCRTCs & (1 << UInt32(crtcIndex)) != 0 && formats.contains(.xrgb8888)
    }
}

/// DRM_MODE_CONNECTOR_WRITEBACK, from drm_mode.h.
let writebackConnectorType: UInt32 = 18

extension Card {
    /// A connector of type WRITEBACK, its CRTCs and formats.
    func writebackConnector(_ pointer: UnsafeMutablePointer<drmModeConnector>) -> WritebackConnectorInfo {
        let c = pointer.pointee
        var crtcs: UInt32 = 0
        for index in 0..<Int(c.count_encoders) {
            guard let encoder = drmModeGetEncoder(fd.rawValue, c.encoders[index]) else { continue }
            crtcs |= encoder.pointee.possible_crtcs
            drmModeFreeEncoder(encoder)
        }
        var formats: [FourCC] = []
        let props = properties(of: c.connector_id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
        if let blobID = props.first(where: { $0.name == "WRITEBACK_PIXEL_FORMATS" })?.value,
           let blob = drmModeGetPropertyBlob(fd.rawValue, UInt32(truncatingIfNeeded: blobID)) {
            let count = Int(blob.pointee.length) / 4
            if let data = blob.pointee.data {
                formats = (0..<count).map { FourCC(rawValue: data.load(fromByteOffset: $0 * 4, as: UInt32.self)) }
            }
            drmModeFreePropertyBlob(blob)
        }
        return WritebackConnectorInfo(id: c.connector_id,
                                      name: ConnectorType.connectorName(type: c.connector_type, typeID: c.connector_type_id),
                                      possibleCRTCs: crtcs, formats: formats)
    }
}

/// A screenshot read back from the display: one blocking atomic commit hands the writeback
/// connector a framebuffer and asks for an out-fence, which the kernel signals once the
/// composed picture is in the buffer; `read` waits for it on the asker's thread. The connector
/// was attached to the CRTC in the modeset (attaching it later is a full modeset, which would
/// blank a real screen), so the commit changes no plane: it captures what the screen shows.
/// Each read-back has a buffer of its own: one the driver writes late (a starved guest's vkms,
/// seconds after the vblank) is never reused under it, and the next read-back does not wait.
final class WritebackReadBack: ScreenReadBack, @unchecked Sendable {
    // Safe to share: `fence` and `buffer` are set once; the buffer stays mapped until the
    // last reference goes; `released` is read and written with `lock` held.
    let connector: WritebackConnectorInfo
    private let buffer: DumbBuffer
    private let fence: Int32
    /// The display's commits counted after this one's (`AtomicPresenter.commitsMade`).
    let commitsAfter: UInt64
    private let lock = NSLock()
    private var released = false

    /// Commits `buffer` (the CRTC's mode size: drivers refuse another) to the connector; the
    /// buffer is destroyed when that fails.
    init(card: Card, connector: WritebackConnectorInfo, buffer: DumbBuffer, atomic: AtomicPresenter) throws(DRMError) {
        let props = Dictionary(card.properties(of: connector.id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
            .map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
        guard let framebufferProperty = props["WRITEBACK_FB_ID"], let fenceProperty = props["WRITEBACK_OUT_FENCE_PTR"] else {
            buffer.destroy()
            throw .missingProperty(object: "writeback connector \(connector.id)",
                                   name: props["WRITEBACK_FB_ID"] == nil ? "WRITEBACK_FB_ID" : "WRITEBACK_OUT_FENCE_PTR")
        }
        var fence: Int32 = -1
        do {
            try withUnsafeMutablePointer(to: &fence) { (pointer) throws(DRMError) in
                var request = AtomicRequest()
                request.add(connector.id, framebufferProperty, UInt64(buffer.framebufferID))
                request.add(connector.id, fenceProperty, UInt64(UInt(bitPattern: pointer)))
                try atomic.commit(request, flags: 0, userData: nil, what: "reading the screen back through writeback connector \(connector.id)")
            }
        } catch {
            buffer.destroy()
            throw error
        }
        guard fence >= 0 else {
            buffer.destroy()
            throw .callFailed(what: "reading the screen back (the kernel gave no writeback fence)", call: "drmModeAtomicCommit", errno: EINVAL)
        }
        self.connector = connector
        self.buffer = buffer
        self.fence = fence
        commitsAfter = atomic.commitsMade
    }

    func read(timeout: Double, _ body: (PixelBuffer) -> Void) throws {
        guard waitForPicture(upTo: timeout) else {
            throw DRMError.callFailed(what: "waiting for writeback connector \(connector.id)'s picture (none within \(timeout) s)",
                                      call: "poll", errno: ETIMEDOUT)
        }
        // A job the driver failed signals too, with an error: its buffer holds no picture.
        if case .failed(let error) = SyncFileState.of(fence) {
            throw DRMError.callFailed(what: "reading writeback connector \(connector.id)'s picture (the driver signalled it failed)",
                                      call: "SYNC_IOC_FILE_INFO", errno: error)
        }
        body(buffer.pixelBuffer(index: -1))
    }

    /// Whether the driver has written the picture (its fence signalled), without waiting.
    var hasArrived: Bool { waitForPicture(upTo: 0) }

    /// Waits at most `seconds` for the picture; whether it came.
    func waitForPicture(upTo seconds: Double) -> Bool {
        var poller = pollfd(fd: fence, events: Int16(POLLIN), revents: 0)
        var result: Int32
        repeat { result = poll(&poller, 1, Int32(max(0, seconds) * 1000)) } while result < 0 && errno == EINTR
        // POLLERR or POLLNVAL alone is no picture.
        return result > 0 && poller.revents & Int16(POLLIN) != 0
    }

    /// The display lets go of it (closing, or a newer read-back): the framebuffer and handle go
    /// now, under the display's lock while the card is open; the memory stays mapped for a
    /// thread still reading the picture, until the last reference goes.
    func releaseKernelObjects() {
        lock.withLock {
            released = true
            buffer.releaseKernelObjects()
        }
    }

    deinit {
        // Always released by the display first (it holds the newest until it closes), so no
        // call here reaches a card that may be closed.
        if !lock.withLock({ released }) { buffer.abandonKernelObjects() }
        buffer.unmap()
        Glibc.close(fence)
    }
}
