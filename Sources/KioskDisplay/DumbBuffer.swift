import CDRM
import Glibc
import KioskCore

/// A CPU-drawable scanout buffer: a dumb buffer object, mapped into this process, registered as
/// an XRGB8888 framebuffer. Freed with `destroy()` (idempotent): unmap, remove the framebuffer,
/// destroy the buffer object; or in two steps when a drawer may still hold the memory.
final class DumbBuffer {
    let size: PixelSize
    let pitch: Int
    let byteCount: Int
    private(set) var framebufferID: UInt32 = 0
    private var handle: UInt32 = 0
    private var mapping: UnsafeMutableRawPointer?
    private let fd: Int32

    init(card: Card, size: PixelSize) throws(DRMError) {
        fd = card.fd
        self.size = size
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd, UInt32(size.width), UInt32(size.height), 32, 0,
                                      &handle, &pitch, &byteCount) == 0 else {
            throw .callFailed(what: "allocating a \(size) scanout buffer", call: "drmModeCreateDumbBuffer", errno: errno)
        }
        self.handle = handle
        self.pitch = Int(pitch)
        self.byteCount = Int(byteCount)
        do {
            try map()
            try addFramebuffer()
        } catch {
            destroy()
            throw error
        }
    }

    deinit { destroy() }

    private func map() throws(DRMError) {
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd, handle, &offset) == 0 else {
            throw .callFailed(what: "mapping a scanout buffer", call: "drmModeMapDumbBuffer", errno: errno)
        }
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(Int64(bitPattern: offset)))
        guard let address, address != MAP_FAILED else {
            throw .callFailed(what: "mapping a scanout buffer", call: "mmap", errno: errno)
        }
        mapping = address
    }

    private func addFramebuffer() throws(DRMError) {
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (UInt32(pitch), 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var id: UInt32 = 0
        let result = withUnsafePointer(to: &handles) { h in
            withUnsafePointer(to: &pitches) { p in
                withUnsafePointer(to: &offsets) { o in
                    drmModeAddFB2(fd, UInt32(size.width), UInt32(size.height), FourCC.xrgb8888.rawValue,
                                  UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &id, 0)
                }
            }
        }
        guard result == 0 else {
            throw .callFailed(what: "registering a \(size) XRGB8888 framebuffer", call: "drmModeAddFB2", errno: errno)
        }
        framebufferID = id
    }

    /// A view of the mapped memory for drawing; valid until `destroy()`.
    func pixelBuffer(index: Int) -> PixelBuffer {
        PixelBuffer(base: mapping!, size: size, stride: pitch, format: .xrgb8888, index: index)
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
        if framebufferID != 0 { _ = drmModeRmFB(fd, framebufferID); framebufferID = 0 }
        if handle != 0 { _ = drmModeDestroyDumbBuffer(fd, handle); handle = 0 }
    }

    /// Where the buffer is mapped; nil once unmapped.
    var baseAddress: UnsafeMutableRawPointer? { mapping }

    func unmap() {
        if let mapping { munmap(mapping, byteCount); self.mapping = nil }
    }
}
