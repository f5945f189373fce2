import CDRM
import Foundation
import Glibc
import KioskCore
import SystemPackage

/// A dma-buf from a dma-buf heap (`/dev/dma_heap/system`): memory of no display device, as a
/// hardware decoder's output is, that the display can import (PRIME). `kiosk probe
/// --prime-import` writes its pictures here, so the import path is tried on a box without
/// a hardware decoder. Mapped for CPU writes; closed with `close()` or deinit.
public final class HeapBuffer {
    public let fd: Int32
    public let byteCount: Int
    private var mapping: UnsafeMutableRawPointer?

    /// Allocates `byteCount` bytes from the heap at `heapPath`.
    public init(byteCount: Int, heapPath: String = "/dev/dma_heap/system") throws(DRMError) {
        let heap = open(heapPath, O_RDWR | O_CLOEXEC)
        guard heap >= 0 else {
            throw .callFailed(what: "opening the dma-buf heap \(heapPath) (kernel 5.6+ with CONFIG_DMABUF_HEAPS_SYSTEM)",
                              call: "open", errno: errno)
        }
        defer { Glibc.close(heap) }
        var fd: Int32 = -1
        guard kiosk_dma_heap_alloc(heap, UInt64(byteCount), &fd) == 0 else {
            throw .callFailed(what: "allocating \(byteCount) bytes from \(heapPath)", call: "DMA_HEAP_IOCTL_ALLOC", errno: errno)
        }
        self.fd = fd
        self.byteCount = byteCount
        let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let address, address != MAP_FAILED else {
            let code = errno
            Glibc.close(fd)
            closed = true   // deinit runs (every property is set) and must not close it again
            throw .callFailed(what: "mapping a \(byteCount)-byte dma-buf", call: "mmap", errno: code)
        }
        mapping = address
    }

    /// `byteCount` bytes of a deleted file in /dev/shm (else the temporary directory): memory
    /// that can be mapped through its descriptor like a dma-buf, where the kernel has no dma-buf
    /// heap. No card imports it (drmPrimeFDToHandle refuses a plain file); a test display reads it.
    public init(fileBacked byteCount: Int) throws(DRMError) {
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
        var template = Array("\(directory)/kiosk-frame-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .callFailed(what: "making a frame's file in \(directory)", call: "mkstemp", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        guard ftruncate(fd, off_t(byteCount)) == 0,
              let address = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            let code = errno
            Glibc.close(fd)
            throw .callFailed(what: "mapping a \(byteCount)-byte frame file", call: "mmap", errno: code)
        }
        self.fd = fd
        self.byteCount = byteCount
        mapping = address
    }

    /// Whether this kernel offers the dma-buf system heap.
    public static var systemHeapExists: Bool { access("/dev/dma_heap/system", F_OK) == 0 }

    deinit { close() }

    /// Writes `rows` copies of `row` starting at `offset`, `pitch` bytes apart, inside the
    /// dma-buf's CPU-access bracket. Rows that would run past the end are not written.
    public func fill(row: [UInt8], rows: Int, offset: Int, pitch: Int) {
        guard let mapping else { return }
        _ = kiosk_dma_buf_cpu_write(fd, 1)
        defer { _ = kiosk_dma_buf_cpu_write(fd, 0) }
        row.withUnsafeBytes { bytes in
            for index in 0..<rows {
                let start = offset + index * pitch
                guard start >= 0, start + bytes.count <= byteCount, let base = bytes.baseAddress else { return }
                (mapping + start).copyMemory(from: base, byteCount: bytes.count)
            }
        }
    }

    /// Lets `body` write into the mapping (`byteCount` bytes) inside the CPU-access bracket.
    public func write(_ body: (UnsafeMutableRawPointer) -> Void) {
        guard let mapping else { return }
        _ = kiosk_dma_buf_cpu_write(fd, 1)
        defer { _ = kiosk_dma_buf_cpu_write(fd, 0) }
        body(mapping)
    }

    public func close() {
        if let mapping { munmap(mapping, byteCount); self.mapping = nil }
        if fd >= 0, closed == false { Glibc.close(fd); closed = true }
    }

    private var closed = false
}
