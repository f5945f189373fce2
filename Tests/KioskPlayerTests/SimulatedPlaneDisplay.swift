import Foundation
import KioskCore
import KioskDisplay

/// A screen with a simulated YUV overlay plane, for the direct video path without a card: it
/// advertises a primary XRGB8888 plane and an overlay that takes NV12/YU12 and scales, answers
/// as DRMDisplay does (PlaneSelection, then a "TEST_ONLY" that can be told to refuse), and
/// records what it is given: every scanout's rectangles, and the bytes of the first frames as
/// they would land in a dumb buffer (through the same YUVBufferLayout copy). CPU-path presents
/// go to a HeadlessDisplay and are counted.
final class SimulatedPlaneDisplay: DirectVideoOutput, @unchecked Sendable {
    struct Shown {
        var scanout: PlaneScanout
        var format: VideoFrameFormat
        var frameSize: PixelSize
        /// The buffer as filled (kept for the first `keptFrames` frames only), and its layout.
        var bytes: [UInt8]?
        var layout: YUVBufferLayout
    }

    static let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888], currentCRTCID: 40)
    static let overlay = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.xrgb8888, .nv12, .yuv420],
                                          scaling: .yes)

    let screen: HeadlessDisplay
    /// The "driver" refuses every TEST_ONLY commit.
    let refusesTestCommits: Bool
    /// Direct presents after this many fail (a commit failing at run time).
    let failsAfter: Int?
    let keptFrames = 3
    private let lock = NSLock()
    private var _shown: [Shown] = []
    private var _prepared: [DirectScanoutAnswer] = []
    private var _cpuPresents = 0
    private var lastFlip: Double?
    /// The "dumb buffer" frames are copied into (presenter thread only).
    private var scratch: [UInt8] = []

    /// Each CPU-path back buffer takes this long to hand out (a slow draw).
    let slowDrawSeconds: Double

    /// `pacing`: the CPU path's screen's (`.vblank`: a panel's grid, which the plane path
    /// does not follow here).
    init(size: PixelSize, refusesTestCommits: Bool = false, failsAfter: Int? = nil, pacing: HeadlessPacing = .interval,
         slowDrawSeconds: Double = 0) {
        screen = HeadlessDisplay(size: size, pacing: pacing)
        self.slowDrawSeconds = slowDrawSeconds
        self.refusesTestCommits = refusesTestCommits
        self.failsAfter = failsAfter
    }

    /// The zero-copy path's "driver": a refusal for every configuration, or a commit failing
    /// after this many presents (set before playing).
    var primeOptions: (refusal: String?, failsAfter: Int?) = (nil, nil)
    /// The overlay's IN_FORMATS for the zero-copy path (nil: none, linear buffers only); set
    /// before playing, as `primeOptions`.
    var overlayModifiers: [FourCC: [UInt64]]?
    private var _primeShown: [PrimeShown] = []
    var primeShown: [PrimeShown] { lock.withLock { _primeShown } }
    func recordPrime(_ shown: PrimeShown) { lock.withLock { _primeShown.append(shown) } }

    var shown: [Shown] { lock.withLock { _shown } }
    var prepared: [DirectScanoutAnswer] { lock.withLock { _prepared } }
    var cpuPresents: Int { lock.withLock { _cpuPresents } }
    /// Of the first CPU-path picture: the share of its pixels that are not black.
    private var _firstCPUPictureLit: Double?
    var firstCPUPictureLit: Double? { lock.withLock { _firstCPUPictureLit } }

    var size: PixelSize { screen.size }
    var refreshInterval: MediaTime { screen.refreshInterval }
    func backBuffer() throws -> PixelBuffer {
        if slowDrawSeconds > 0 { Thread.sleep(forTimeInterval: slowDrawSeconds) }
        return try screen.backBuffer()
    }
    var flipsOnVblankGrid: Bool { screen.flipsOnVblankGrid }
    func expectedFlip(after host: Double) -> Double { screen.expectedFlip(after: host) }
    func present(_ buffer: PixelBuffer) throws -> Double {
        if lock.withLock({ _firstCPUPictureLit == nil }) {
            var lit = 0
            for y in 0..<buffer.size.height { for x in 0..<buffer.size.width where buffer.pixel(x: x, y: y) & 0xFF_FFFF > 0x10_1010 { lit += 1 } }
            lock.withLock { _firstCPUPictureLit = Double(lit) / Double(buffer.size.width * buffer.size.height) }
        }
        lock.withLock { _cpuPresents += 1 }
        let flip = try screen.present(buffer)
        lock.withLock { lastFlip = flip }
        return flip
    }

    func prepareDirectScanout(format: VideoFrameFormat, frameSize: PixelSize, layout: GravityLayout) -> DirectScanoutAnswer {
        var answer = PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: .none,
                                                        primaryPlaneID: Self.primary.id, crtcIndex: 0, crtcID: 40,
                                                        planes: [Self.primary, Self.overlay])
        if refusesTestCommits, case .ready(let scanout) = answer {
            answer = .refused(reason: "plane \(scanout.planeID) refused \(scanout.format) \(scanout.source) -> \(scanout.destination): "
                              + "a TEST_ONLY commit failed: Invalid argument (errno 22)")
        }
        lock.withLock { _prepared.append(answer) }
        return answer
    }

    struct CommitFailed: Error, CustomStringConvertible {
        var description: String { "drmModeAtomicCommit failed showing a frame on plane 33: Invalid argument (errno 22)" }
    }

    func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout) throws -> Double {
        let count = lock.withLock { _shown.count }
        if let failsAfter, count >= failsAfter { throw CommitFailed() }
        let size = YUVBufferLayout.framebufferSize(for: frame.size)
        let layout = YUVBufferLayout(format: frame.format, size: size, pitch: (size.width + 63) / 64 * 64)!
        // Every frame is copied, as into a dumb buffer (the real path's cost); the first few kept.
        if scratch.count != layout.byteCount { scratch = [UInt8](repeating: 0, count: layout.byteCount) }
        scratch.withUnsafeMutableBytes { layout.copy(frame, into: $0.baseAddress!) }
        let bytes = count < keptFrames ? scratch : nil
        // Paced like a screen: at most one flip per refresh.
        var now = HeadlessDisplay.monotonicSeconds()
        if let last = lock.withLock({ lastFlip }), last + refreshInterval.seconds > now {
            Thread.sleep(forTimeInterval: last + refreshInterval.seconds - now)
            now = HeadlessDisplay.monotonicSeconds()
        }
        lock.withLock {
            lastFlip = now
            _shown.append(Shown(scanout: scanout, format: frame.format, frameSize: frame.size, bytes: bytes, layout: layout))
        }
        return now
    }
}

/// The zero-copy path on the simulated plane: "imports" a picture in another device's memory by
/// mapping its object (a file's memory on a host without a dma-buf heap), and records the first
/// luma row it finds there. Can be told to refuse, or to fail after some presents.
extension SimulatedPlaneDisplay: PrimeScanoutOutput {
    struct PrimeShown {
        var scanout: PlaneScanout
        var size: PixelSize
        var layers: [FourCC]
        var pitch: Int
        var firstLumaRow: [UInt8]
    }

    func preparePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout) -> DirectScanoutAnswer {
        if let refusal = primeOptions.refusal { return .refused(reason: refusal) }
        var overlay = Self.overlay
        overlay.modifiers = overlayModifiers
        return PlaneSelection.choosePrimeScanout(format: format, modifier: modifier, layout: layout, primaryPlaneID: Self.primary.id,
                                                 crtcIndex: 0, crtcID: 40, planes: [Self.primary, overlay])
    }

    func presentPrime(_ picture: PrimePicture, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double {
        if let after = primeOptions.failsAfter, primeShown.count >= after { throw CommitFailed() }
        let frame = picture.descriptor
        let object = frame.objects[0], luma = frame.layers[0].planes[0]
        guard let base = mmap(nil, object.size, PROT_READ, MAP_SHARED, object.fd, 0), base != MAP_FAILED else {
            throw CommitFailed()
        }
        defer { munmap(base, object.size) }
        let row = Array(UnsafeRawBufferPointer(start: base + luma.offset, count: frame.size.width))
        let now = HeadlessDisplay.monotonicSeconds()
        recordPrime(PrimeShown(scanout: scanout, size: frame.size, layers: frame.layers.map(\.format), pitch: luma.pitch,
                               firstLumaRow: row))
        return now
    }
}
