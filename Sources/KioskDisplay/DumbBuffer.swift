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

    init(card: Card, size: PixelSize, format: PixelFormat = .xrgb8888) throws(DRMError) {
        fd = card.fd
        self.size = size
        self.format = format
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd.rawValue, UInt32(size.width), UInt32(size.height), 32, 0,
                                      &handle, &pitch, &byteCount) == 0 else {
            throw .callFailed(what: "allocating a \(size) scanout buffer", call: "drmModeCreateDumbBuffer", errno: errno)
        }
        self.handle = handle
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
        if handle != 0 { _ = drmModeDestroyDumbBuffer(fd.rawValue, handle); handle = 0 }
    }

    /// Where the buffer is mapped; nil once unmapped.
    var baseAddress: UnsafeMutableRawPointer? { mapping }

    func unmap() {
        if let mapping { munmap(mapping, byteCount); self.mapping = nil }
    }
}
