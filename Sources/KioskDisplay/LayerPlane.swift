import CDRM
import Glibc
import KioskCore

/// The overlay plane that shows the layers over the video plane (DRMDisplay+LayerPlane): two
/// ARGB8888 buffers of the screen's size, one on screen and one to draw into (every commit
/// that changes them waits for its flip, so two suffice). A ticker's plane is one too, its
/// buffers the ticker's window (twice the strip's width), shown a strip's width at a time.
/// Used under DRMDisplay's lock only.
final class LayerPlane {
    let info: DisplayPlaneInfo
    private let card: Card
    private let crtcID: UInt32
    private let props: [String: UInt32]
    /// Where a zpos property can put this plane above the others (its range's top); nil: the
    /// driver's order stands (PlaneSelection took a plane after the video plane for that).
    private let zpos: UInt64?
    /// "Pre-multiplied", where the plane has a blend-mode property (what kiosk draws).
    private let premultiplied: UInt64?
    private var buffers: [DumbBuffer] = []
    private var frontIndex: Int?
    /// Whether the plane shows the layers now (a CPU-path flip must switch it off).
    private(set) var isShown = false

    init(card: Card, info: DisplayPlaneInfo, crtcID: UInt32, size: PixelSize) throws(DRMError) {
        self.card = card
        self.info = info
        self.crtcID = crtcID
        let properties = card.properties(of: info.id, type: UInt32(DRM_MODE_OBJECT_PLANE))
        props = Dictionary(properties.map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
        let zposProperty = properties.first { $0.name == "zpos" }
        zpos = zposProperty.flatMap { $0.flags & UInt32(DRM_MODE_PROP_IMMUTABLE) == 0 ? $0.range.last : nil }
        premultiplied = properties.first { $0.name == "pixel blend mode" }?
            .enumEntries.first { $0.name == "Pre-multiplied" }?.value
        for name in ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"]
        where props[name] == nil {
            throw .missingProperty(object: "plane \(info.id)", name: name)
        }
        do {
            for _ in 0..<2 {
                let buffer = try DumbBuffer(card: card, size: size, format: .argb8888)
                buffer.pixelBuffer(index: 0).fill(PixelRect(size: size), color: 0)   // transparent
                buffers.append(buffer)
            }
        } catch {
            destroy()
            throw error
        }
    }

    deinit { destroy() }

    var size: PixelSize { buffers[0].size }

    /// The buffer not on screen, to draw into; its index is its place here.
    func backBuffer() -> PixelBuffer {
        let index = frontIndex.map { 1 - $0 } ?? 0
        return buffers[index].pixelBuffer(index: index)
    }

    /// Whether `buffer` is this plane's back buffer (not a stale or foreign view).
    func owns(_ buffer: PixelBuffer) -> Bool {
        holds(buffer) && buffer.index != frontIndex
    }

    /// Whether `buffer` is one of this plane's (on screen or not): a ticker's scroll shows the
    /// window on screen from another column.
    func holds(_ buffer: PixelBuffer) -> Bool {
        buffers.indices.contains(buffer.index) && buffers[buffer.index].baseAddress == buffer.base
    }

    /// The plane's part of a commit showing buffer `index` over the whole screen, unscaled; or,
    /// given `strip`, the buffer's columns from `sourceX` on, a strip's width, in `strip`.
    func showRequest(buffer index: Int, sourceX: Int = 0, strip: PixelRect? = nil) -> AtomicRequest {
        var request = AtomicRequest()
        let target = strip ?? PixelRect(size: buffers[index].size)
        request.add(info.id, props["FB_ID"]!, UInt64(buffers[index].framebufferID))
        request.add(info.id, props["CRTC_ID"]!, UInt64(crtcID))
        // Source rectangles are 16.16 fixed point; the destination is in pixels.
        for (name, value) in [("SRC_X", sourceX << 16), ("SRC_Y", 0), ("SRC_W", target.width << 16), ("SRC_H", target.height << 16),
                              ("CRTC_X", target.x), ("CRTC_Y", target.y), ("CRTC_W", target.width), ("CRTC_H", target.height)] {
            request.add(info.id, props[name]!, UInt64(value))
        }
        if let id = props["rotation"] { request.add(info.id, id, UInt64(PlaneRotationSupport.rotate0)) }
        if let zpos, let id = props["zpos"] { request.add(info.id, id, zpos) }
        if let premultiplied, let id = props["pixel blend mode"] { request.add(info.id, id, premultiplied) }
        if let id = props["alpha"] { request.add(info.id, id, 0xFFFF) }
        return request
    }

    /// The plane's part of a commit that switches it off.
    func hideRequest() -> AtomicRequest { .switchingOff(plane: info.id, properties: props) }

    /// After a committed flip showed buffer `index`.
    func noteShown(_ index: Int) {
        frontIndex = index
        isShown = true
    }

    /// After a committed flip switched the plane off: both buffers are free again.
    func noteHidden() {
        isShown = false
        frontIndex = nil
    }

    func destroy() {
        buffers.forEach { $0.destroy() }
        buffers.removeAll()
        isShown = false
        frontIndex = nil
    }
}
