import Foundation
import KioskCore

/// One picture on several screens (`displays.layout` mirror or span), seen by the engine as
/// one `VideoOutput`: it draws each frame once into a canvas, and `present` cuts (span) or
/// fits (mirror) the canvas onto every screen's back buffer and flips them all. The geometry
/// is KioskCore's (`SpanLayout`, `MirrorLayout`); the engine and its loop do not change.
///
/// DRM screens are flipped together (each queued, then each waited for) so two panels on
/// their own vblanks cost one refresh, not two; other outputs are presented one after the other.
public final class MultiScreenOutput: VideoOutput, @unchecked Sendable {
    // Safe to share as the engine uses an output: from the presenter thread, `close` from any.
    public let screens: [VideoOutput]
    public let names: [String]
    public let placements: [HeadPlacement]
    /// The canvas the engine draws into.
    public let size: PixelSize
    private let layoutName: String
    private let stride: Int
    private let canvases: [UnsafeMutableRawPointer]
    private var back = 0

    /// Every screen shows the whole picture, fitted; the canvas is the first screen's upright size.
    public convenience init(mirroring screens: [VideoOutput], names: [String]) {
        let canvas = Self.uprightSize(of: screens[0])
        self.init(screens, names: names, canvas: canvas, layoutName: "mirror",
                  placements: MirrorLayout.placements(canvas: canvas, buffers: screens.map(\.size),
                                                      rotations: screens.map(\.softwareRotation)))
    }

    /// The picture cut across the screens in `grid` (row by row), `bezel` pixels hidden
    /// between neighbours. Nil when the screens do not fill the grid.
    public convenience init?(spanning screens: [VideoOutput], names: [String], grid: GridSize, bezel: Int) {
        guard let span = SpanLayout(grid: grid, screens: screens.map(Self.uprightSize), bezel: bezel) else { return nil }
        self.init(screens, names: names, canvas: span.canvas, layoutName: "span \(grid), bezel \(bezel) px",
                  placements: span.placements(buffers: screens.map(\.size), rotations: screens.map(\.softwareRotation)))
    }

    private init(_ screens: [VideoOutput], names: [String], canvas: PixelSize, layoutName: String,
                 placements: [HeadPlacement]) {
        precondition(!screens.isEmpty && screens.count == names.count)
        self.screens = screens
        self.names = names
        self.placements = placements
        self.layoutName = layoutName
        size = canvas
        stride = (canvas.width * 4 + 63) / 64 * 64
        let bytes = stride * canvas.height
        canvases = (0..<2).map { _ in
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
            return memory
        }
    }

    deinit { canvases.forEach { $0.deallocate() } }

    /// The picture's upright size on a screen: its buffers turned back by the rotation the
    /// engine (here: this output) must give them.
    static func uprightSize(of screen: VideoOutput) -> PixelSize {
        screen.softwareRotation.swapsAxes ? screen.size.transposed : screen.size
    }

    public var refreshInterval: MediaTime { screens[0].refreshInterval }

    public func backBuffer() throws -> PixelBuffer {
        PixelBuffer(base: canvases[back], size: size, stride: stride, index: back)
    }

    /// Cuts or fits the canvas onto every screen and flips them; the time of the first
    /// screen's flip (the others' are within the same refresh on a shared clock).
    /// Each screen's picture is copied (or scaled) from the canvas in `present`.
    public var presentDrawsFirst: Bool { true }

    public func present(_ buffer: PixelBuffer) throws -> Double {
        var drawn: [PixelBuffer] = []
        for (screen, placement) in zip(screens, placements) {
            let target = try screen.backBuffer()
            target.draw(placement.canvasRect, of: buffer, as: placement.layout)
            drawn.append(target)
        }
        back = (buffer.index + 1) % canvases.count
        // Every flip queued before any is waited for: one refresh for all screens.
        let waits = try zip(screens, drawn).map { try $0.submitFlip($1) }
        return try waits.map { try $0() }.first!
    }

    public func expectedFlip(after host: Double) -> Double {
        screens.map { $0.expectedFlip(after: host) }.max() ?? host
    }

    public var summary: String {
        "\(layoutName) of \(size) on \(screens.count) screens: "
            + zip(names, zip(screens, placements)).map { "\($0) [\($1.1.canvasRect)] \($1.0.summary)" }.joined(separator: "; ")
    }

    /// Every screen given back; the first failure thrown after all were tried.
    public func close() throws {
        var firstError: Error?
        for screen in screens {
            do { try screen.close() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    public func connectorStates(probe: Bool) -> [(connector: String, status: ConnectorStatus?)] {
        screens.flatMap { $0.connectorStates(probe: probe) }
    }

    /// Each screen sets itself up again if the connector is its own.
    public func screenReturned(connector: String) throws -> ScreenReturn {
        for screen in screens {
            let done = try screen.screenReturned(connector: connector)
            if done != .notMine { return done }
        }
        return .notMine
    }

    public func setPower(on: Bool) throws -> Bool {
        try screens.map { try $0.setPower(on: on) }.allSatisfy { $0 }
    }
}
