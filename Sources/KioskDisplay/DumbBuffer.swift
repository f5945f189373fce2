import CDRM
import Glibc
import KioskCore
import SystemPackage

/// A CPU-drawable scanout buffer: a dumb buffer object, mapped into this process, registered as
/// an XRGB8888 framebuffer (ARGB8888 for the layers' plane). Freed with `destroy()` (idempotent): unmap, remove the framebuffer,
/// destroy the buffer object; or in two steps when a drawer may still hold the memory.
final class DumbBuffer {
    let size: PixelSize
    let pitch: Int
    let byteCount: Int
    private(set) var framebufferID: UInt32 = 0
    private var handle: UInt32 = 0
    private var mapping: UnsafeMutableRawPointer?
    let format: PixelFormat
    private let fd: FileDescriptor
    private let gemHandles: GEMHandles

    init(card: Card, size: PixelSize, format: PixelFormat = .xrgb8888) throws(DRMError) {
        fd = card.fd
        gemHandles = card.gemHandles
        self.size = size
        self.format = format
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd.rawValue, UInt32(size.width), UInt32(size.height), 32, 0,
                                      &handle, &pitch, &byteCount) == 0 else {
            throw .callFailed(what: "allocating a \(size) scanout buffer", call: "drmModeCreateDumbBuffer", errno: errno)
        }
        self.handle = handle
        gemHandles.update { $0.noteCreated(handle) }
        self.pitch = Int(pitch)
        self.byteCount = Int(byteCount)
        do {
            mapping = try DumbBufferCalls.map(fd: fd, handle: handle, byteCount: self.byteCount, what: "a scanout buffer")
            framebufferID = try DumbBufferCalls.addFramebuffer(fd: fd, size: size, format: format == .argb8888 ? .argb8888 : .xrgb8888,
                                                               planes: [(handle, pitch, 0)])
        } catch {
            destroy()
            throw error
        }
    }

    deinit { destroy() }

    /// A view of the mapped memory for drawing; valid until `destroy()`.
    func pixelBuffer(index: Int) -> PixelBuffer {
        PixelBuffer(base: mapping!, size: size, stride: pitch, format: format, index: index)
    }

    func destroy() {
        unmap()
        releaseKernelObjects()
    }

    /// Removes the framebuffer and the buffer handle; needs the card still open. The memory
    /// stays valid while mapped (the mapping holds its own reference to the buffer object),
    /// so a thread still drawing into it cannot crash.
    func releaseKernelObjects() {
        // Removing a framebuffer that is still scanned out turns its plane off; restore runs
        // first so this never blanks a screen that was handed back.
        if framebufferID != 0 { _ = drmModeRmFB(fd.rawValue, framebufferID); framebufferID = 0 }
        if handle != 0 {
            // A dma-buf of this buffer imported back on this card shares the handle: the last
            // of the two to let go closes it (GEMHandleLedger).
            let handle = self.handle
            let fd = self.fd
            gemHandles.update { if $0.destroyCreated(handle) { _ = drmModeDestroyDumbBuffer(fd.rawValue, handle) } }
            self.handle = 0
        }
    }

    /// Forgets the framebuffer and handle without a call: for a buffer whose card may be closed
    /// already (which freed them), so that `destroy` reaches no file descriptor.
    func abandonKernelObjects() {
        framebufferID = 0
        handle = 0
    }

    /// The buffer object's GEM handle on its card (0 once released).
    var gemHandle: UInt32 { handle }

    /// Where the buffer is mapped; nil once unmapped.
    var baseAddress: UnsafeMutableRawPointer? { mapping }

    func unmap() {
        if let mapping { munmap(mapping, byteCount); self.mapping = nil }
    }
}
