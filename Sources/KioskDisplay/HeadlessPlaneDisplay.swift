import Foundation
import KioskCore

/// A headless display with the planes of a typical signage SoC (`--display
/// headless:WxH[@HZ]:planes`): a primary XRGB8888 plane, an overlay that takes NV12/YU12
/// and ARGB8888 and scales, an ARGB8888 overlay above it for the layers and another above
/// that for a ticker's window. The direct video path runs on it as on a card: the plane is chosen
/// by the same rules (PlaneSelection), every frame is copied into a buffer laid out as a YUV
/// dumb buffer (YUVBufferLayout, the copy the real path makes) and flips are paced like the
/// plain headless display's. Benchmarks measure the plane path's CPU cost on a host with no
/// KMS, and previews behave as a box with planes would. CPU-path frames go to the
/// HeadlessDisplay inside.
public final class HeadlessPlaneDisplay: LayerPlaneOutput, @unchecked Sendable {
    public static let primaryPlane = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888],
                                                      currentCRTCID: 40)
    public static let overlayPlane = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1,
                                                      formats: [.xrgb8888, .argb8888, .nv12, .yuv420], scaling: .yes)
    public static let layersPlane = DisplayPlaneInfo(id: 35, type: .overlay, possibleCRTCs: 1, formats: [.argb8888, .xrgb8888])
    public static let tickerPlane = DisplayPlaneInfo(id: 37, type: .overlay, possibleCRTCs: 1, formats: [.argb8888, .xrgb8888])
    static let planes = [primaryPlane, overlayPlane, layersPlane, tickerPlane]
    public let screen: HeadlessDisplay
    private let lock = NSLock()
    /// The "dumb buffer" frames are copied into; the presenter thread's only.
    private var planeBuffer: UnsafeMutableRawBufferPointer?
    private var _planePresents = 0
    private var _layerPresents = 0
    /// The layers' plane's two ARGB buffers (the presenter thread's only) and the one shown.
    private var layerBuffers: [UnsafeMutableRawBufferPointer] = []
    private var layerFront: Int?
    /// The ticker's plane's two window buffers, and what it shows (nil: off).
    private var tickerBuffers: [UnsafeMutableRawBufferPointer] = []
    private var tickerWindowSize: PixelSize?
    private var tickerShown: TickerScroll?
    private var _tickerScrolls = 0

    public init(size: PixelSize, refreshRate: Double = 60, paced: Bool = true, pacing: HeadlessPacing = .interval,
                rotation: Rotation = .none) {
        screen = HeadlessDisplay(size: size, refreshRate: refreshRate, paced: paced, pacing: pacing, rotation: rotation)
    }

    deinit {
        planeBuffer?.deallocate()
        layerBuffers.forEach { $0.deallocate() }
        tickerBuffers.forEach { $0.deallocate() }
    }

    /// Frames shown on the overlay plane so far.
    public var planePresents: Int { lock.withLock { _planePresents } }
    /// Commits that changed the layers' plane so far (with a frame or alone).
    public var layerPresents: Int { lock.withLock { _layerPresents } }
    /// Commits that showed the ticker's window (scrolled it) so far.
    public var tickerScrolls: Int { lock.withLock { _tickerScrolls } }

    public var size: PixelSize { screen.size }
    public var refreshInterval: MediaTime { screen.refreshInterval }
    public var softwareRotation: Rotation { screen.softwareRotation }
    public func backBuffer() throws -> PixelBuffer { try screen.backBuffer() }
    /// A CPU-drawn picture: the overlay planes go off, as on a card.
    public func present(_ buffer: PixelBuffer) throws -> Double {
        layerFront = nil
        tickerShown = nil
        return try screen.present(buffer)
    }
    public func expectedFlip(after host: Double) -> Double { screen.expectedFlip(after: host) }
    /// The planes' commits end with the screen's flips.
    public func close() throws { try screen.close() }
    public var wasClosed: Bool { screen.isClosed }
    public var flipsOnVblankGrid: Bool { screen.flipsOnVblankGrid }
    /// Off takes the overlay planes down, as on a card (DRMDisplay+Power).
    public func setPower(on: Bool) throws -> Bool {
        if !on { layerFront = nil; tickerShown = nil }
        return try screen.setPower(on: on)
    }
    public var directVideo: DirectVideoOutput? { self }
    public var summary: String { screen.summary + ", with a simulated YUV/ARGB overlay plane and an ARGB layers' plane" }

    public func prepareDirectScanout(format: VideoFrameFormat, frameSize: PixelSize, layout: GravityLayout) -> DirectScanoutAnswer {
        guard !screen.isClosed else { return .unavailable(reason: "the display is closed") }   // as a card answers
        return PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: .none,
                                           primaryPlaneID: Self.primaryPlane.id, crtcIndex: 0, crtcID: 40,
                                           planes: Self.planes)
    }

    public func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout) throws -> Double {
        try presentDirect(frame, on: scanout, layers: .hide)
    }

    public func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double {
        guard !screen.isClosed else { throw HeadlessDisplayError.closed }
        guard screen.isPoweredOn else { throw HeadlessDisplayError.poweredOff }
        let size = YUVBufferLayout.framebufferSize(for: frame.size)
        guard let layout = YUVBufferLayout(format: frame.format, size: size, pitch: (size.width + 63) / 64 * 64) else {
            throw HeadlessDisplayError.unsupportedFrame("\(frame.format) frames of \(frame.size)")
        }
        if planeBuffer?.count != layout.byteCount {
            planeBuffer?.deallocate()
            planeBuffer = .allocate(byteCount: layout.byteCount, alignment: 4096)
        }
        layout.copy(frame, into: planeBuffer!.baseAddress!)
        let flip = flipNow()
        lock.withLock { _planePresents += 1 }
        noteLayers(layers)
        return flip
    }

    public func prepareLayerPlane(over scanout: PlaneScanout) -> LayerPlaneAnswer {
        guard !screen.isClosed else { return .unavailable(reason: "the display is closed") }   // as a card answers
        return PlaneSelection.chooseLayerPlane(videoPlaneID: scanout.planeID, primaryPlaneID: Self.primaryPlane.id,
                                        crtcIndex: 0, planes: Self.planes)
    }

    public func layerBuffer() throws -> PixelBuffer {
        guard !screen.isClosed else { throw HeadlessDisplayError.closed }
        let stride = size.width * 4
        if layerBuffers.isEmpty { layerBuffers = Self.transparentPair(byteCount: stride * size.height) }
        let index = layerFront.map { 1 - $0 } ?? 0
        return PixelBuffer(base: layerBuffers[index].baseAddress!, size: size, stride: stride, format: .argb8888, index: index)
    }

    public func presentLayers(_ layers: LayerPlaneChange) throws -> Double {
        guard !screen.isClosed else { throw HeadlessDisplayError.closed }
        guard screen.isPoweredOn else { throw HeadlessDisplayError.poweredOff }
        let flip = flipNow()
        noteLayers(layers)
        return flip
    }

    public func prepareTickerPlane(window: PixelSize, strip: PixelRect, over scanout: PlaneScanout) -> LayerPlaneAnswer {
        guard !screen.isClosed else { return .unavailable(reason: "the display is closed") }   // as a card answers
        let answer = PlaneSelection.chooseTickerPlane(window: window, strip: strip, screen: size,
                                                      layersPlaneID: Self.layersPlane.id, videoPlaneID: scanout.planeID,
                                                      primaryPlaneID: Self.primaryPlane.id, crtcIndex: 0, planes: Self.planes)
        if case .ready = answer, tickerWindowSize != window {
            guard tickerShown == nil else { return .unavailable(reason: "the ticker's plane shows another window") }
            tickerBuffers.forEach { $0.deallocate() }
            tickerBuffers = Self.transparentPair(byteCount: window.width * 4 * window.height)
            tickerWindowSize = window
        }
        return answer
    }

    public func tickerBuffer() throws -> PixelBuffer {
        guard let window = tickerWindowSize else { throw HeadlessDisplayError.unsupportedFrame("a ticker's window before its plane") }
        let index = tickerShown.map { 1 - $0.window.index } ?? 0
        return PixelBuffer(base: tickerBuffers[index].baseAddress!, size: window, stride: window.width * 4,
                           format: .argb8888, index: index)
    }

    /// A plane's two ARGB buffers, transparent (all zero), as a card's dumb buffers would be.
    private static func transparentPair(byteCount: Int) -> [UnsafeMutableRawBufferPointer] {
        (0..<2).map { _ in
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: 4096)
            memory.initializeMemory(as: UInt8.self, repeating: 0)
            return memory
        }
    }

    /// The ticker's plane as shown now, nil while it is off: for tests.
    public var shownTicker: TickerScroll? { tickerShown }

    /// The layers' plane as shown now (premultiplied ARGB), nil while it is off: for tests.
    public var shownLayers: PixelBuffer? {
        layerFront.map { PixelBuffer(base: layerBuffers[$0].baseAddress!, size: size, stride: size.width * 4,
                                     format: .argb8888, index: $0) }
    }

    private func noteLayers(_ change: LayerPlaneChange) {
        switch change {
        case .keep: return
        case .show(let buffer):
            layerFront = buffer.index
            tickerShown = nil
        case .scroll(let buffer, let ticker):
            tickerShown = ticker
            lock.withLock { _tickerScrolls += 1 }
            guard let buffer else { return }
            layerFront = buffer.index
        case .hide:
            tickerShown = nil
            guard layerFront != nil else { return }
            layerFront = nil
        }
        lock.withLock { _layerPresents += 1 }
    }

    /// A flip paced like the plain headless display's.
    private func flipNow() -> Double {
        var now = HeadlessDisplay.monotonicSeconds()
        let flip = screen.expectedFlip(after: now)
        if flip > now { HeadlessDisplay.sleep(until: flip); now = flip }
        screen.noteFlip(at: now)
        return now
    }
}
