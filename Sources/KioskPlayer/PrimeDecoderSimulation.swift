import KioskCore
import KioskDisplay
import KioskMedia
import Logging

/// `kiosk play --simulate-prime-decoder`: what a hardware decoder hands over, made from a
/// software frame on the decode thread. Each video frame's planes are copied as NV12 into a
/// buffer of the dma-buf system heap (memory of no display device; a file's where there is
/// none), pitches of 256-byte multiples, described as VA-API exports a surface (two layers,
/// R8 + GR88, one object); the frame carries it as `DecodedFrame.prime`, so the zero-copy path
/// imports and flips it while everything else (screenshots, the OSD, transitions) still has the
/// frame's own pixels. The upload is a copy: this measures nothing, it proves the path on a
/// real driver (vkms) and in the engine's tests.
final class PrimeDecoderSimulation {
    private let source: String
    private let handOn: PrimeHandOn?
    private let logger: Logger
    private var failed = false

    init(source: String, handOn: PrimeHandOn?, logger: Logger) {
        self.source = source
        self.handOn = handOn
        self.logger = logger
    }

    /// Attaches the frame's picture in heap memory; after the first failure (no heap: one line)
    /// frames go on without one.
    func attach(to frame: DecodedFrame) {
        guard !failed, let view = frame.yuvView else { return }
        do {
            frame.prime = try Self.upload(view)
            // As a decoder leaves its frame on the device while the zero-copy path shows them.
            if handOn?.copyDown.load(ordering: .relaxed) == false { frame.leaveOnSimulatedDevice() }
        } catch {
            failed = true
            logger.warning("\(source): simulated PRIME decoder: \(error); frames go on in memory only")
        }
    }

    static func upload(_ view: YUVFrameView) throws -> PrimePicture {
        let size = YUVBufferLayout.framebufferSize(for: view.size)
        let pitch = (size.width + 255) / 256 * 256
        let chromaOffset = pitch * size.height
        let bytes = (chromaOffset + pitch * size.height / 2 + 4095) / 4096 * 4096
        // No heap (kernels before 5.6, hosts without the module): a file's memory, which only a
        // test display can take; a card refuses it and the copy path shows the frames.
        let buffer = try HeapBuffer.systemHeapExists ? HeapBuffer(byteCount: bytes) : HeapBuffer(fileBacked: bytes)
        buffer.write { base in
            for row in 0..<size.height {
                (base + row * pitch).copyMemory(from: view.planes[0].base + row * view.planes[0].stride, byteCount: size.width)
            }
            for row in 0..<size.height / 2 {
                let target = (base + chromaOffset + row * pitch).assumingMemoryBound(to: UInt8.self)
                if view.format == .nv12 {
                    target.update(from: (view.planes[1].base + row * view.planes[1].stride).assumingMemoryBound(to: UInt8.self),
                                  count: size.width)
                } else {
                    // YUV420 to NV12: the U and V rows interleaved.
                    let u = (view.planes[1].base + row * view.planes[1].stride).assumingMemoryBound(to: UInt8.self)
                    let v = (view.planes[2].base + row * view.planes[2].stride).assumingMemoryBound(to: UInt8.self)
                    for pair in 0..<size.width / 2 {
                        target[2 * pair] = u[pair]
                        target[2 * pair + 1] = v[pair]
                    }
                }
            }
        }
        let descriptor = PrimeFrameDescriptor(
            size: size, objects: [.init(fd: buffer.fd, size: buffer.byteCount, modifier: FormatModifier.linear)],
            layers: [.init(format: .r8, planes: [.init(object: 0, offset: 0, pitch: pitch)]),
                     .init(format: .gr88, planes: [.init(object: 0, offset: chromaOffset, pitch: pitch)])])
        return PrimePicture(descriptor: descriptor, owner: buffer, matrix: view.matrix)
    }
}
