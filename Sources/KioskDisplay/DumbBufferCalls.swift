import CDRM
import Glibc
import KioskCore
import SystemPackage

/// The two libdrm steps every dumb buffer takes after it is created, shared by the XRGB scanout
/// buffers and the YUV video-plane buffers: map its memory into this process, and register it
/// as a framebuffer (one handle, pitch and offset per picture plane).
enum DumbBufferCalls {
    /// Maps `byteCount` bytes of the dumb buffer `handle`; `what` names it in errors.
    static func map(fd: FileDescriptor, handle: UInt32, byteCount: Int, what: String) throws(DRMError) -> UnsafeMutableRawPointer {
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd.rawValue, handle, &offset) == 0 else {
            throw .callFailed(what: "mapping \(what)", call: "drmModeMapDumbBuffer", errno: errno)
        }
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, off_t(Int64(bitPattern: offset)))
        guard let address, address != MAP_FAILED else {
            throw .callFailed(what: "mapping \(what)", call: "mmap", errno: errno)
        }
        return address
    }

    /// Registers a framebuffer of `size` and `format` whose picture planes (at most four) are
    /// described by `planes`; its id.
    static func addFramebuffer(fd: FileDescriptor, size: PixelSize, format: FourCC,
                               planes: [(handle: UInt32, pitch: UInt32, offset: UInt32)]) throws(DRMError) -> UInt32 {
        precondition((1...4).contains(planes.count))
        func field(_ i: Int, _ pick: ((handle: UInt32, pitch: UInt32, offset: UInt32)) -> UInt32) -> UInt32 {
            i < planes.count ? pick(planes[i]) : 0
        }
        var handles = (field(0, \.handle), field(1, \.handle), field(2, \.handle), field(3, \.handle))
        var pitches = (field(0, \.pitch), field(1, \.pitch), field(2, \.pitch), field(3, \.pitch))
        var offsets = (field(0, \.offset), field(1, \.offset), field(2, \.offset), field(3, \.offset))
        var id: UInt32 = 0
        let result = withUnsafePointer(to: &handles) { h in
            withUnsafePointer(to: &pitches) { p in
                withUnsafePointer(to: &offsets) { o in
                    drmModeAddFB2(fd.rawValue, UInt32(size.width), UInt32(size.height), format.rawValue,
                                  UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self),
                                  UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &id, 0)
                }
            }
        }
        guard result == 0 else {
            throw .callFailed(what: "registering a \(size) \(format) framebuffer", call: "drmModeAddFB2", errno: errno)
        }
        return id
    }
}
