import CDRM
import Glibc
import KioskCore

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
    private let fd: Int32

    /// A buffer for frames of `frameSize` (the framebuffer is that size rounded down to even sides).
    init(card: Card, format: VideoFrameFormat, frameSize: PixelSize) throws(DRMError) {
        fd = card.fd
        let size = YUVBufferLayout.framebufferSize(for: frameSize)
        let what = "allocating a \(size) \(format.drmFormats[0]) video plane buffer"
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        // Rows of 64-byte multiples: chroma rows (half a luma row for YU12) stay aligned too.
        let width = (size.width + 63) / 64 * 64
        let rows = UInt32(YUVBufferLayout.dumbBufferRows(for: size))
        if drmModeCreateDumbBuffer(fd, UInt32(width), rows, 8, 0, &handle, &pitch, &byteCount) != 0 {
            // Some drivers make 32-bit dumb buffers only (virtio-gpu: EINVAL for 8): the same
            // bytes as a quarter as many 32-bit pixels per row.
            guard errno == EINVAL, drmModeCreateDumbBuffer(fd, UInt32(width / 4), rows, 32, 0, &handle, &pitch, &byteCount) == 0 else {
                throw .callFailed(what: what, call: "drmModeCreateDumbBuffer", errno: errno)
            }
        }
        self.handle = handle
        guard let layout = YUVBufferLayout(format: format, size: size, pitch: Int(pitch)), layout.byteCount <= Int(byteCount) else {
            _ = drmModeDestroyDumbBuffer(fd, handle)
            throw .callFailed(what: what + " (pitch \(pitch), \(byteCount) bytes)", call: "drmModeCreateDumbBuffer", errno: EINVAL)
        }
        self.layout = layout
        mappedBytes = Int(byteCount)
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
            throw .callFailed(what: "mapping a video plane buffer", call: "drmModeMapDumbBuffer", errno: errno)
        }
        let address = mmap(nil, mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(Int64(bitPattern: offset)))
        guard let address, address != MAP_FAILED else {
            throw .callFailed(what: "mapping a video plane buffer", call: "mmap", errno: errno)
        }
        mapping = address
    }

    private func addFramebuffer() throws(DRMError) {
        let planes = layout.planes
        func value(_ index: Int, _ pick: (YUVBufferLayout.Plane) -> Int) -> UInt32 {
            index < planes.count ? UInt32(pick(planes[index])) : 0
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, handle, planes.count > 2 ? handle : 0, 0)
        var pitches = (value(0, \.pitch), value(1, \.pitch), value(2, \.pitch), UInt32(0))
        var offsets = (value(0, \.offset), value(1, \.offset), value(2, \.offset), UInt32(0))
        var id: UInt32 = 0
        let size = layout.size, fourCC = layout.fourCC
        let result = withUnsafePointer(to: &handles) { h in
            withUnsafePointer(to: &pitches) { p in
                withUnsafePointer(to: &offsets) { o in
                    drmModeAddFB2(fd, UInt32(size.width), UInt32(size.height), fourCC.rawValue,
                                  UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &id, 0)
                }
            }
        }
        guard result == 0 else {
            throw .callFailed(what: "registering a \(size) \(fourCC) framebuffer", call: "drmModeAddFB2", errno: errno)
        }
        framebufferID = id
    }

    /// Copies `frame` in, row by row (no conversion).
    func fill(with frame: YUVFrameView) {
        guard let mapping else { return }
        layout.copy(frame, into: mapping)
    }

    func destroy() {
        if let mapping { munmap(mapping, mappedBytes); self.mapping = nil }
        if framebufferID != 0 { _ = drmModeRmFB(fd, framebufferID); framebufferID = 0 }
        if handle != 0 { _ = drmModeDestroyDumbBuffer(fd, handle); handle = 0 }
    }
}
