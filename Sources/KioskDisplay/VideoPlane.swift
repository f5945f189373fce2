import CDRM
import Glibc
import KioskCore

/// The overlay plane that scans decoded YUV frames out (DRMDisplay+DirectVideo): its property
/// ids, a few YUV buffers for the current format and size, and the black XRGB buffer the
/// primary plane shows behind the video (the bars). Used under DRMDisplay's lock only.
final class VideoPlane {
    let info: DisplayPlaneInfo
    private let card: Card
    private let crtcID: UInt32
    private let props: [String: UInt32]
    /// COLOR_ENCODING's and COLOR_RANGE's entries (name to value), where the plane has them.
    private let encodings: [String: UInt64]
    private let ranges: [String: UInt64]
    /// Three buffers: one on screen, one being filled, one spare (for a flip still in flight).
    static let bufferCount = 3
    private(set) var buffers: [YUVDumbBuffer] = []
    /// Buffers of the previous size: freed once a newer buffer is on screen (removing a
    /// framebuffer that is scanned out would switch the plane off for a moment at a seam).
    private var retired: [YUVDumbBuffer] = []
    private var frontIndex: Int?
    /// Whether the plane shows a frame now (a CPU-path flip must switch it off).
    private(set) var isShown = false

    init(card: Card, info: DisplayPlaneInfo, crtcID: UInt32) throws(DRMError) {
        self.card = card
        self.info = info
        self.crtcID = crtcID
        let properties = card.properties(of: info.id, type: UInt32(DRM_MODE_OBJECT_PLANE))
        props = Dictionary(properties.map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
        func entries(_ name: String) -> [String: UInt64] {
            Dictionary((properties.first { $0.name == name }?.enumEntries ?? []).map { ($0.name, $0.value) },
                       uniquingKeysWith: { a, _ in a })
        }
        encodings = entries("COLOR_ENCODING")
        ranges = entries("COLOR_RANGE")
        for name in ["FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"]
        where props[name] == nil {
            throw .missingProperty(object: "plane \(info.id)", name: name)
        }
    }

    deinit { destroy() }

    /// Buffers for `format` frames of `frameSize`; new ones when either changed.
    func ensureBuffers(format: VideoFrameFormat, frameSize: PixelSize) throws(DRMError) {
        let size = YUVBufferLayout.framebufferSize(for: frameSize)
        if let first = buffers.first, first.layout.format == format, first.layout.size == size { return }
        var fresh: [YUVDumbBuffer] = []
        do {
            for _ in 0..<Self.bufferCount { fresh.append(try YUVDumbBuffer(card: card, format: format, frameSize: frameSize)) }
        } catch {
            fresh.forEach { $0.destroy() }
            throw error
        }
        if isShown { retired += buffers } else { buffers.forEach { $0.destroy() } }
        buffers = fresh
        frontIndex = nil
    }

    /// A buffer not on screen, filled with `frame`.
    func fill(with frame: YUVFrameView) -> Int {
        let index = ((frontIndex ?? -1) + 1) % buffers.count
        buffers[index].fill(with: frame)
        return index
    }

    /// The plane's part of a commit showing buffer `index` as `scanout` says.
    func showRequest(buffer index: Int, scanout: PlaneScanout, matrix: YUVMatrix = .bt601) -> AtomicRequest {
        showRequest(framebufferID: buffers[index].framebufferID, scanout: scanout, matrix: matrix)
    }

    /// The plane's part of a commit showing framebuffer `framebufferID` (one of these buffers,
    /// or another device's frame imported as a PrimeFramebuffer).
    func showRequest(framebufferID: UInt32, scanout: PlaneScanout, matrix: YUVMatrix) -> AtomicRequest {
        var request = AtomicRequest()
        request.add(info.id, props["FB_ID"]!, UInt64(framebufferID))
        request.add(info.id, props["CRTC_ID"]!, UInt64(crtcID))
        let values = PlanePropertyValues(scanout, planeHasRotationProperty: props["rotation"] != nil)
        for (name, value) in values.named {
            if let id = props[name] { request.add(info.id, id, value) }
        }
        // The matrix the CPU path would use (BT.709 for HD), where the plane can be told; limited
        // range set explicitly, clearing what a previous client left.
        if let id = props["COLOR_ENCODING"], let value = encodings[matrix.drmEncodingName] { request.add(info.id, id, value) }
        if let id = props["COLOR_RANGE"], let value = ranges[YUVMatrix.drmLimitedRangeName] { request.add(info.id, id, value) }
        return request
    }

    /// The plane's part of a commit that switches it off.
    func hideRequest() -> AtomicRequest { .switchingOff(plane: info.id, properties: props) }

    /// After a committed flip showed buffer `index`: older-size buffers can go now.
    func noteShown(_ index: Int) {
        frontIndex = index
        isShown = true
        retired.forEach { $0.destroy() }
        retired.removeAll()
    }

    /// After a commit showing a framebuffer that is not one of these buffers (a PRIME import):
    /// every buffer is free once its flip is done (then `releaseRetiredBuffers`).
    func noteShowingImport() {
        frontIndex = nil
        isShown = true
    }

    /// After the flip of such a commit: buffers of an older size can go.
    func releaseRetiredBuffers() {
        retired.forEach { $0.destroy() }
        retired.removeAll()
    }

    /// After a committed flip switched the plane off.
    func noteHidden() {
        isShown = false
        frontIndex = nil
        retired.forEach { $0.destroy() }
        retired.removeAll()
    }

    func destroy() {
        (buffers + retired).forEach { $0.destroy() }
        buffers.removeAll()
        retired.removeAll()
        isShown = false
    }
}
