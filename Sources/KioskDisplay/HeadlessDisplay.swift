import Foundation
import Glibc
import KioskCore

/// A display in memory: buffers laid out as a DRM dumb buffer would be (XRGB8888, pitch padded
/// to 64 bytes as drivers commonly do), double-buffered, flipping on the monotonic clock at the
/// given refresh rate: either a refresh apart, as virtual KMS drivers answer, or on the next tick
/// of a fixed vblank grid, as a real panel does (`HeadlessPacing`). Tests, benchmarks and
/// headless previews use it in place of a screen.
public final class HeadlessDisplay: VideoOutput {
    public let size: PixelSize
    public let refreshInterval: MediaTime
    public let stride: Int
    /// When false, `present` returns at once instead of waiting for the next refresh: for
    /// benchmarks that measure decode and scale alone.
    public let paced: Bool
    public let pacing: HeadlessPacing
    /// The first vblank of the simulated panel; later ones follow every `refreshInterval`.
    private let vblankOrigin: Double
    /// A portrait screen simulated: the engine turns the picture on the panel by this much.
    public let softwareRotation: Rotation
    private let storage: [UnsafeMutableRawPointer]
    private var back = 0
    private var lastFlip: Double?
    /// The buffer most recently presented, as a screen would show it.
    public private(set) var frontIndex: Int?
    /// A screen with a power control: off, it shows nothing and refuses flips (as KMS refuses
    /// a flip on a CRTC that is off). Tests read it.
    public private(set) var isPoweredOn = true
    /// Set by `close` (from any thread, as the session gives a card back): presents throw
    /// `.closed` after it, as DRMDisplay's do.
    private let closedLock = NSLock()
    private var closed = false
    public var isClosed: Bool { closedLock.withLock { closed } }
    public var wasClosed: Bool { isClosed }

    public init(size: PixelSize, refreshRate: Double = 60, bufferCount: Int = 2, paced: Bool = true,
                pacing: HeadlessPacing = .interval, rotation: Rotation = .none) {
        precondition(!size.isEmpty && bufferCount >= 2 && refreshRate > 0 && refreshRate.isFinite)
        self.size = size
        self.softwareRotation = rotation
        // Whole hertz exactly; a fractional rate (59.94) to the nanosecond.
        self.refreshInterval = refreshRate == refreshRate.rounded() && refreshRate <= Double(Int32.max)
            ? MediaTime(value: 1, timescale: Int32(refreshRate))
            : MediaTime(seconds: 1 / refreshRate, timescale: 1_000_000_000)

        self.paced = paced
        self.pacing = pacing
        vblankOrigin = HeadlessDisplay.monotonicSeconds()
        stride = (size.width * 4 + 63) / 64 * 64
        storage = (0..<bufferCount).map { _ in
            let memory = UnsafeMutableRawPointer.allocate(byteCount: (size.width * 4 + 63) / 64 * 64 * size.height, alignment: 4096)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: (size.width * 4 + 63) / 64 * 64 * size.height)
            return memory
        }
    }

    deinit {
        storage.forEach { $0.deallocate() }
    }

    public func buffer(_ index: Int) -> PixelBuffer {
        PixelBuffer(base: storage[index], size: size, stride: stride, index: index)
    }

    public func backBuffer() throws -> PixelBuffer { buffer(back) }

    /// The picture on "screen" now, or nil before the first present.
    public var frontBuffer: PixelBuffer? { frontIndex.map(buffer) }

    public func setPower(on: Bool) throws -> Bool {
        isPoweredOn = on
        return true
    }

    public func present(_ buffer: PixelBuffer) throws -> Double {
        precondition(buffer.base == storage[buffer.index], "buffer from another display")
        guard !isClosed else { throw HeadlessDisplayError.closed }
        guard isPoweredOn else { throw HeadlessDisplayError.poweredOff }
        var now = HeadlessDisplay.monotonicSeconds()
        let flip = expectedFlip(after: now)
        if flip > now { HeadlessDisplay.sleep(until: flip); now = flip }
        lastFlip = now
        frontIndex = buffer.index
        back = (buffer.index + 1) % storage.count
        return now
    }

    /// The memory stays (the engine may still be drawing into a buffer); flips end.
    public func close() throws { closedLock.withLock { closed = true } }

    /// `.interval` flips a refresh after the last, not on a grid.
    public var flipsOnVblankGrid: Bool { paced && pacing == .vblank }

    /// A flip made elsewhere (HeadlessPlaneDisplay's plane) at `time`: the next is paced after it.
    func noteFlip(at time: Double) { lastFlip = time }

    /// When a flip asked for at `host` completes; `present` waits until then.
    public func expectedFlip(after host: Double) -> Double {
        guard paced else { return host }
        switch pacing {
        // The first vblank after the request, never the one the previous flip completed on.
        case .vblank: return nextVblank(after: max(host, lastFlip ?? host))
        // Never more often than the refresh rate.
        case .interval: return lastFlip.map { max(host, $0 + refreshInterval.seconds) } ?? host
        }
    }

    /// The first tick of the simulated vblank grid strictly after `time`.
    func nextVblank(after time: Double) -> Double {
        let interval = refreshInterval.seconds
        let ticks = ((time - vblankOrigin) / interval).rounded(.down) + 1
        return vblankOrigin + ticks * interval
    }

    public var summary: String {
        let flips = !paced ? "at once (untimed)" : pacing == .vblank ? "on a simulated vblank grid" : "a refresh apart"
        let turn = softwareRotation == .none ? "" : ", rotation \(softwareRotation.degrees)° (CPU)"
        return "headless \(size) at \(String(format: "%g", (1 / refreshInterval.seconds * 1000).rounded() / 1000)) Hz in memory, flips \(flips)\(turn)"
    }

    public static func monotonicSeconds() -> Double { MonotonicClock().now() }

    static func sleep(until deadline: Double) {
        var ts = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

public enum HeadlessDisplayError: OutputFailure, CustomStringConvertible {
    case poweredOff
    case closed
    /// A frame the simulated plane's buffer layout cannot hold.
    case unsupportedFrame(String)
    public var description: String {
        switch self {
        case .poweredOff: "a flip while the screen is off"
        case .closed: "the display is closed"
        case .unsupportedFrame(let what): "the simulated plane cannot hold \(what)"
        }
    }

    public var isOutputClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}
