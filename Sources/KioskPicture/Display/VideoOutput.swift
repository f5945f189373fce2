/// The pixel layouts kiosk scans out. XRGB8888 is what every KMS driver accepts for a dumb
/// buffer: little-endian 32-bit words, bytes B, G, R, X in memory.
public enum PixelFormat: String, Sendable, Codable {
    case xrgb8888
    /// A layers' plane (over the video plane): B, G, R, A in memory, colours premultiplied by
    /// alpha (the KMS default "Pre-multiplied" blend mode); 0 is transparent.
    case argb8888
    public var bytesPerPixel: Int { 4 }
}

/// A mapped frame buffer: a dumb buffer's memory, or a headless buffer laid out the same way.
/// A view only: the display that owns the memory keeps it alive while the view is in use.
public struct PixelBuffer: @unchecked Sendable {
    public let base: UnsafeMutableRawPointer
    public let size: PixelSize
    /// Bytes per row; at least `size.width * 4`, often padded (drivers align pitches).
    public let stride: Int
    public let format: PixelFormat
    /// Which of the display's buffers this is, for `present`.
    public let index: Int

    public init(base: UnsafeMutableRawPointer, size: PixelSize, stride: Int, format: PixelFormat = .xrgb8888, index: Int) {
        precondition(stride >= size.width * format.bytesPerPixel, "stride shorter than a row")
        self.base = base; self.size = size; self.stride = stride; self.format = format; self.index = index
    }

    public var byteCount: Int { stride * size.height }

    /// The pixel at (x, y) as 0xXXRRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        base.load(fromByteOffset: y * stride + x * 4, as: UInt32.self)
    }

    /// Paints `rect` one color (0x00RRGGBB); used for black bars.
    public func fill(_ rect: PixelRect, color: UInt32 = 0) {
        guard rect.width > 0, rect.height > 0 else { return }
        // One pixel stored, then byte copies (memmove) doubling along the first row and row by
        // row below it. Not `initialize(repeating:)`: unspecialized in a debug build it makes
        // one value-witness call per element, and the bars then cost more than the scaling
        // (20% of `kiosk play`'s CPU natively; in the VM bed's emulated CPU, frames came late).
        let rowBytes = rect.width * 4
        let first = base + rect.y * stride + rect.x * 4
        first.storeBytes(of: color, as: UInt32.self)
        var filled = 4
        while filled < rowBytes {
            let chunk = Swift.min(filled, rowBytes - filled)
            (first + filled).copyMemory(from: first, byteCount: chunk)
            filled += chunk
        }
        for row in 1..<rect.height {
            (first + row * stride).copyMemory(from: first, byteCount: rowBytes)
        }
    }

    /// Paints everything outside `rect` black: the bars around an aspect-fit picture.
    public func clear(outside rect: PixelRect) {
        let full = PixelRect(size: size)
        fill(PixelRect(x: 0, y: 0, width: full.width, height: rect.y))
        fill(PixelRect(x: 0, y: rect.maxY, width: full.width, height: full.height - rect.maxY))
        fill(PixelRect(x: 0, y: rect.y, width: rect.x, height: rect.height))
        fill(PixelRect(x: rect.maxX, y: rect.y, width: full.width - rect.maxX, height: rect.height))
    }
}

/// A screen kiosk draws on: DRM/KMS, or memory for tests, previews and benchmarks. In the
/// spirit of mpv's video-output drivers: the engine only sees this.
public protocol VideoOutput: AnyObject {
    /// The visible size in pixels as the scanout sees it (before any display rotation).
    var size: PixelSize { get }
    /// Time between two refreshes of the screen.
    var refreshInterval: MediaTime { get }
    /// A buffer that is not on screen and may be drawn into.
    func backBuffer() throws -> PixelBuffer
    /// Puts `buffer` on screen at the next refresh; returns once the flip is done, with the
    /// CLOCK_MONOTONIC time it happened at, in seconds.
    func present(_ buffer: PixelBuffer) throws -> Double
    /// The clockwise turn the engine must give its picture when drawing into a buffer, for a
    /// rotated (portrait) screen the display cannot rotate in hardware; `.none` otherwise
    /// (then `size` is already the upright picture's size).
    var softwareRotation: Rotation { get }
    /// When a flip asked for at `host` (CLOCK_MONOTONIC seconds) would reach the screen: at once
    /// on virtual drivers, at the next vblank on a real panel. The presenter decides which frame
    /// is due at that moment rather than at the moment it asks, or a panel would show every
    /// frame up to a refresh late. The default: at once.
    func expectedFlip(after host: Double) -> Double

    // What a display is, for the code around the engine: it asks these instead of casting to a
    // display type it would then depend on.

    /// One line for the log on what is driven and how, as mpv names its video output: the
    /// card, connector, mode, API and pacing of a DRM screen.
    var summary: String { get }
    /// Gives the screen back as it was before (the console's mode and framebuffer); safe from
    /// any thread, and more than once. The default: nothing to give back.
    func close() throws
    /// The panel's scanout size in its native orientation, whatever the buffers' (a plane that
    /// rotates hands out transposed ones): touch coordinates come in this frame.
    var scanoutSize: PixelSize { get }
    /// The clockwise turn of the picture on the panel, done by a plane or by the engine.
    var rotation: Rotation { get }
    /// The display's direct video path (frames scanned out on a hardware plane, no CPU
    /// conversion); nil when it has none.
    var directVideo: DirectVideoOutput? { get }
    /// Turns the screen off or on again (KMS: the connector's DPMS, which on an atomic driver
    /// switches the CRTC off); on again, the last picture shows. False when the display has no
    /// such control: the engine then shows black while off. The default: no control.
    func setPower(on: Bool) throws -> Bool
    /// Whether `present` draws before it asks for the flip (a mirror or span copies the
    /// picture onto each screen first): a flip asked for at the last moment before the vblank
    /// (`CommitLead`) would miss it, so the presenter asks at once. The default: no.
    var presentDrawsFirst: Bool { get }
    /// Whether a flip completes the moment it is asked for (a KMS driver without vblanks:
    /// bochs, virtio-gpu, simpledrm, USB displays): the presenter then holds a timed frame
    /// until the moment the pacer chose it for, as a draw that ran faster than its estimate
    /// would otherwise put it up early. The default: no (the flip waits for a vblank, or the
    /// output paces itself).
    var flipsWhenAsked: Bool { get }
    /// Whether a flip completes at the first vblank of a fixed grid after it is asked for (a
    /// panel's refresh; `expectedFlip` traces the grid): the presenter then holds a timed
    /// picture until the vblank before its own has passed, or a draw that ran faster than its
    /// estimate would put it up a refresh early. The default: no.
    var flipsOnVblankGrid: Bool { get }
    /// Queues `buffer`'s flip and returns the wait for it, so screens that must flip on one
    /// refresh (a mirror, a span) queue every flip before waiting for any, each through its own
    /// display's code rather than a downcast. The default presents at once.
    func submitFlip(_ buffer: PixelBuffer) throws -> () throws -> Double
    /// Asks the display hardware for the picture it composes (every plane, as scanned out, in
    /// the panel's orientation; a DRM writeback connector), which the driver writes a while
    /// later: the caller waits for it with `ScreenReadBack.read`, off the presenter thread. Nil
    /// where the display cannot: the caller composes its own copy from what it drew. The
    /// default: cannot.
    func beginReadBack() throws -> ScreenReadBack?
    /// How a screenshot of this display is taken, for the log.
    var screenshotSource: String { get }
    /// The screens' connectors, each named as /sys/class/drm names it (`card1-HDMI-A-1`), with
    /// the driver's word on its cable (nil: it could not be read): what kiosk watches for a
    /// screen unplugged and plugged in again. `probe`: the driver looks again (DRM's
    /// GETCONNECTOR, which may read EDID: only after the kernel said a hotplug happened), else
    /// what it last found. The default: none (headless).
    func connectorStates(probe: Bool) -> [(connector: String, status: ConnectorStatus?)]
    /// The screen on `connector` was plugged in again: its mode is set anew (the CRTC switched
    /// off and on) where the driver says the link needs it; the last picture shows again. Safe
    /// from any thread. The default: `.notMine`.
    func screenReturned(connector: String) throws -> ScreenReturn
    /// Whether `close()` ran: the session gave the screen back (a presenter still drawing then
    /// meets OutputFailure.isOutputClosed, and says nothing of planes or failures).
    var wasClosed: Bool { get }
}

/// What a display did for a screen plugged in again.
public enum ScreenReturn: Sendable, Equatable {
    /// Not one of its connectors.
    case notMine
    /// Switched off (or closed): switching on sets the mode.
    case switchedOff
    /// The driver kept the link (or trained it again itself): nothing to do.
    case linkGood
    /// The link had failed: the mode was set anew.
    case modeSet
}

extension VideoOutput {
    public var wasClosed: Bool { false }
    public func submitFlip(_ buffer: PixelBuffer) throws -> () throws -> Double {
        let flipped = try present(buffer)
        return { flipped }
    }

    /// Most outputs show buffers as they are drawn.
    public var softwareRotation: Rotation { .none }

    public func expectedFlip(after host: Double) -> Double { host }

    public var summary: String { "\(size) at \(Int((1 / refreshInterval.seconds).rounded())) Hz" }

    public func close() throws {}

    /// Buffers in the panel's orientation: the engine turns the picture itself, if at all.
    public var scanoutSize: PixelSize { size }
    public var rotation: Rotation { softwareRotation }

    public var directVideo: DirectVideoOutput? { nil }
    public var presentDrawsFirst: Bool { false }
    public var flipsWhenAsked: Bool { false }
    public var flipsOnVblankGrid: Bool { false }

    public func beginReadBack() throws -> ScreenReadBack? { nil }
    public var screenshotSource: String { "composed by kiosk from its own buffers" }

    public func setPower(on: Bool) throws -> Bool { false }

    public func connectorStates(probe: Bool) -> [(connector: String, status: ConnectorStatus?)] { [] }
    public func screenReturned(connector: String) throws -> ScreenReturn { .notMine }
}

extension DirectVideoOutput {
    /// A display with planes offers its own.
    public var directVideo: DirectVideoOutput? { self }
}
