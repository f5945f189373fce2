import CDRM
import Glibc
import KioskCore
import SystemPackage

/// A dumb buffer holding one 4:2:0 picture (NV12 or YU12) for a video plane: created 8 bits
/// per pixel with `height * 3 / 2` rows (the usual way to get a YUV buffer from the generic
/// dumb-buffer ioctl, as GStreamer's kmssink does), mapped, and registered with drmModeAddFB2
/// with one handle and a pitch and offset per plane.
final class YUVDumbBuffer {
    let layout: YUVBufferLayout
    private(set) var framebufferID: UInt32 = 0
    private var handle: UInt32 = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappedBytes = 0
    private let fd: FileDescriptor
    private let gemHandles: GEMHandles

    /// A buffer for frames of `frameSize` (the framebuffer is that size rounded down to even sides).
    init(card: Card, format: VideoFrameFormat, frameSize: PixelSize) throws(DRMError) {
        fd = card.fd
        gemHandles = card.gemHandles
        let size = YUVBufferLayout.framebufferSize(for: frameSize)
        let what = "allocating a \(size) \(format.drmFormats[0]) video plane buffer"
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        // Rows of 64-byte multiples: chroma rows (half a luma row for YU12) stay aligned too.
        let width = (size.width + 63) / 64 * 64
        let rows = UInt32(YUVBufferLayout.dumbBufferRows(for: size))
        if drmModeCreateDumbBuffer(fd.rawValue, UInt32(width), rows, 8, 0, &handle, &pitch, &byteCount) != 0 {
            // Some drivers make 32-bit dumb buffers only (virtio-gpu: EINVAL for 8): the same
            // bytes as a quarter as many 32-bit pixels per row.
            guard errno == EINVAL, drmModeCreateDumbBuffer(fd.rawValue, UInt32(width / 4), rows, 32, 0, &handle, &pitch, &byteCount) == 0 else {
                throw .callFailed(what: what, call: "drmModeCreateDumbBuffer", errno: errno)
            }
        }
        self.handle = handle
        guard let layout = YUVBufferLayout(format: format, size: size, pitch: Int(pitch)), layout.byteCount <= Int(byteCount) else {
            _ = drmModeDestroyDumbBuffer(fd.rawValue, handle)
            throw .callFailed(what: what + " (pitch \(pitch), \(byteCount) bytes)", call: "drmModeCreateDumbBuffer", errno: EINVAL)
        }
        self.layout = layout
        gemHandles.update { $0.noteCreated(handle) }
        mappedBytes = Int(byteCount)
        do {
            mapping = try DumbBufferCalls.map(fd: fd, handle: handle, byteCount: mappedBytes, what: "a video plane buffer")
            framebufferID = try DumbBufferCalls.addFramebuffer(
                fd: fd, size: layout.size, format: layout.fourCC,
                planes: layout.planes.map { (handle, UInt32($0.pitch), UInt32($0.offset)) })
        } catch {
            destroy()
            throw error
        }
    }

    deinit { destroy() }

    /// Copies `frame` in, row by row (no conversion).
    func fill(with frame: YUVFrameView) {
        guard let mapping else { return }
        layout.copy(frame, into: mapping)
    }

    func destroy() {
        if let mapping { munmap(mapping, mappedBytes); self.mapping = nil }
        if framebufferID != 0 { _ = drmModeRmFB(fd.rawValue, framebufferID); framebufferID = 0 }
        if handle != 0 {
            let handle = self.handle
            let fd = self.fd
            gemHandles.update { if $0.destroyCreated(handle) { _ = drmModeDestroyDumbBuffer(fd.rawValue, handle) } }
            self.handle = 0
        }
    }
}
