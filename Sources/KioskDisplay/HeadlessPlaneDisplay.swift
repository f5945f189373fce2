import Foundation
import KioskCore

/// A headless display with the planes of a typical signage SoC (`--display
/// headless:WxH[@HZ]:planes`): a primary XRGB8888 plane and an overlay that takes NV12/YU12
/// and ARGB8888 and scales. The direct video path runs on it as on a card: the plane is chosen
/// by the same rules (PlaneSelection), every frame is copied into a buffer laid out as a YUV
/// dumb buffer (YUVBufferLayout, the copy the real path makes) and flips are paced like the
/// plain headless display's. Benchmarks measure the plane path's CPU cost on a host with no
/// KMS, and previews behave as a box with planes would. CPU-path frames go to the
/// HeadlessDisplay inside.
public final class HeadlessPlaneDisplay: DirectVideoOutput, @unchecked Sendable {
    public static let primaryPlane = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888],
                                                      currentCRTCID: 40)
    public static let overlayPlane = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1,
                                                      formats: [.xrgb8888, .argb8888, .nv12, .yuv420], scaling: .yes)
    public let screen: HeadlessDisplay
    private let lock = NSLock()
    /// The "dumb buffer" frames are copied into; the presenter thread's only.
    private var planeBuffer: UnsafeMutableRawBufferPointer?
    private var _planePresents = 0

    public init(size: PixelSize, refreshRate: Double = 60, paced: Bool = true, pacing: HeadlessPacing = .interval,
                rotation: Rotation = .none) {
        screen = HeadlessDisplay(size: size, refreshRate: refreshRate, paced: paced, pacing: pacing, rotation: rotation)
    }

    deinit { planeBuffer?.deallocate() }

    /// Frames shown on the overlay plane so far.
    public var planePresents: Int { lock.withLock { _planePresents } }

    public var size: PixelSize { screen.size }
    public var refreshInterval: MediaTime { screen.refreshInterval }
    public var softwareRotation: Rotation { screen.softwareRotation }
    public func backBuffer() throws -> PixelBuffer { try screen.backBuffer() }
    public func present(_ buffer: PixelBuffer) throws -> Double { try screen.present(buffer) }
    public func expectedFlip(after host: Double) -> Double { screen.expectedFlip(after: host) }
    public func setPower(on: Bool) throws -> Bool { try screen.setPower(on: on) }
    public var directVideo: DirectVideoOutput? { self }
    public var summary: String { screen.summary + ", with a simulated YUV/ARGB overlay plane" }

    public func prepareDirectScanout(format: VideoFrameFormat, frameSize: PixelSize, layout: GravityLayout) -> DirectScanoutAnswer {
        PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: .none,
                                           primaryPlaneID: Self.primaryPlane.id, crtcIndex: 0, crtcID: 40,
                                           planes: [Self.primaryPlane, Self.overlayPlane])
    }

    public func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout) throws -> Double {
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
        var now = HeadlessDisplay.monotonicSeconds()
        let flip = screen.expectedFlip(after: now)
        if flip > now { HeadlessDisplay.sleep(until: flip); now = flip }
        screen.noteFlip(at: now)
        lock.withLock { _planePresents += 1 }
        return now
    }
}
