/// The layers' plane (issue 32): kiosk.conf `layers` (a ticker, a clock, a logo, text) drawn
/// into an ARGB8888 plane above the video plane, so a video frame on the YUV plane is never
/// converted for them and a ticker's refresh redraws only its strip. A capability next to
/// `DirectVideoOutput`: where the display has no second plane (or refuses the pair) the CPU
/// path draws the layers into the picture, as before.

/// What a display says about a layers' plane over the video plane.
public enum LayerPlaneAnswer: Sendable, Hashable {
    /// Tested (TEST_ONLY) with the video plane: frames and layers may be committed together.
    case ready(planeID: UInt32)
    /// No plane fits or the driver refused the pair: the layers go into the CPU picture.
    case unavailable(reason: String)
}

/// What a video frame's commit does with the layers' plane.
public enum LayerPlaneChange: @unchecked Sendable {
    /// It keeps showing what it shows (the layers did not change).
    case keep
    /// It shows this buffer (from `layerBuffer()`, drawn), and the ticker's plane goes off if
    /// it was on (the ticker is drawn with the layers now).
    case show(PixelBuffer)
    /// The ticker's plane shows its window as `ticker` says, and the layers' plane this buffer
    /// (nil: it keeps what it shows).
    case scroll(PixelBuffer?, ticker: TickerScroll)
    /// It is switched off, and the ticker's plane with it (no layers, or they went back to the
    /// CPU picture).
    case hide

    /// The layers' plane's new buffer, if the change shows one.
    public var layersBuffer: PixelBuffer? {
        switch self {
        case .show(let buffer): return buffer
        case .scroll(let buffer, _): return buffer
        case .keep, .hide: return nil
        }
    }
}

/// A ticker on a plane of its own (issue 32): its window, a buffer as tall as the ticker's strip
/// and twice as wide, holds the box with the line drawn into it once; each refresh moves only
/// the plane's source rectangle along it (`sourceX`), so a refresh is one commit with nothing
/// copied or blended. Drawn again, into the other buffer, when the line has moved a strip's width.
public struct TickerScroll: @unchecked Sendable {
    /// The window (from `tickerBuffer()`), ARGB8888 premultiplied.
    public var window: PixelBuffer
    /// The window's first column shown at the strip's left edge; the strip's width is shown.
    public var sourceX: Int
    /// Where on the screen the strip is (the buffers' orientation; unscaled).
    public var strip: PixelRect

    public init(window: PixelBuffer, sourceX: Int, strip: PixelRect) {
        self.window = window; self.sourceX = sourceX; self.strip = strip
    }
}

public protocol LayerPlaneOutput: DirectVideoOutput {
    /// Whether an ARGB plane can be shown over the video plane as `scanout` puts it; asked again
    /// only when the video's scanout changes. May allocate the plane's buffers.
    func prepareLayerPlane(over scanout: PlaneScanout) -> LayerPlaneAnswer
    /// A premultiplied ARGB8888 buffer of the screen's size (`size`, the buffers' orientation)
    /// that is not on screen, to draw the layers into. Its contents are what was drawn into it
    /// last (the presenter tracks which, by `index`).
    func layerBuffer() throws -> PixelBuffer
    /// `presentDirect`, the layers' plane changed as `layers` says in the same commit. Returns
    /// once the flip is done, with its CLOCK_MONOTONIC time.
    func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout, layers: LayerPlaneChange) throws -> Double
    /// Only the layers change (a ticker's refresh between two video frames): one commit of the
    /// layers' planes, the video plane's frame staying.
    func presentLayers(_ layers: LayerPlaneChange) throws -> Double
    /// Whether a plane above the layers' plane can show a ticker's window (`window` big) in
    /// `strip`, unscaled, with the video and layers' planes (TEST_ONLY); asked after
    /// `prepareLayerPlane` said ready. May allocate the plane's two buffers.
    func prepareTickerPlane(window: PixelSize, strip: PixelRect, over scanout: PlaneScanout) -> LayerPlaneAnswer
    /// The ticker's plane's buffer not on screen (as `layerBuffer()` for the layers' plane).
    func tickerBuffer() throws -> PixelBuffer
}

extension PlaneSelection {
    /// The plane for the layers over the video plane `videoPlaneID`: an overlay that takes
    /// ARGB8888 on the CRTC, neither the primary nor the video plane. Without a zpos property
    /// drivers stack planes in the order they were made (vkms, most SoCs' default zpos follows
    /// the plane ids), so only a plane after the video plane is taken: one below it would hide
    /// behind the video.
    public static func chooseLayerPlane(videoPlaneID: UInt32, primaryPlaneID: UInt32?, crtcIndex: Int,
                                        planes: [DisplayPlaneInfo]) -> LayerPlaneAnswer {
        let free = planes.filter {
            $0.type == .overlay && $0.id != videoPlaneID && $0.id != primaryPlaneID && $0.canDrive(crtcIndex: crtcIndex)
        }
        let argb = free.filter { $0.formats.contains(.argb8888) }
        if let above = argb.filter({ $0.id > videoPlaneID }).min(by: { $0.id < $1.id }) {
            return .ready(planeID: above.id)
        }
        if free.isEmpty { return .unavailable(reason: "no overlay plane beside the video plane \(videoPlaneID)") }
        if argb.isEmpty { return .unavailable(reason: "no overlay plane beside the video plane takes AR24") }
        return .unavailable(reason: "the AR24 planes (\(argb.map { String($0.id) }.joined(separator: ", "))) stack below the video plane \(videoPlaneID)")
    }
}

extension PlaneSelection {
    /// The plane for a ticker's `window` shown unscaled in `strip` of a `screen`-sized screen,
    /// above the layers' plane `layersPlaneID`: an overlay that takes ARGB8888 on the CRTC, after
    /// the layers' plane (the same stacking rule as `chooseLayerPlane`'s), neither the primary
    /// nor the video plane.
    public static func chooseTickerPlane(window: PixelSize, strip: PixelRect, screen: PixelSize, layersPlaneID: UInt32,
                                         videoPlaneID: UInt32, primaryPlaneID: UInt32?, crtcIndex: Int,
                                         planes: [DisplayPlaneInfo]) -> LayerPlaneAnswer {
        guard strip.x >= 0, strip.y >= 0, strip.maxX <= screen.width, strip.maxY <= screen.height,
              window.width >= strip.width, window.height == strip.height else {
            return .unavailable(reason: "the ticker's strip \(strip) is not on the \(screen) screen")
        }
        let above = planes.filter {
            $0.type == .overlay && $0.id > layersPlaneID && $0.id != videoPlaneID && $0.id != primaryPlaneID
                && $0.canDrive(crtcIndex: crtcIndex) && $0.formats.contains(.argb8888)
        }
        guard let plane = above.min(by: { $0.id < $1.id }) else {
            return .unavailable(reason: "no AR24 overlay plane above the layers' plane \(layersPlaneID)")
        }
        return .ready(planeID: plane.id)
    }
}

extension PixelBuffer {
    /// Lays the part of a ticker's window its plane shows over this XRGB picture, at the strip:
    /// a screenshot composed from kiosk's own buffers.
    public func composite(_ ticker: TickerScroll) {
        let strip = ticker.strip
        guard strip.x >= 0, strip.y >= 0, strip.maxX <= size.width, strip.maxY <= size.height,
              ticker.sourceX >= 0, ticker.sourceX + strip.width <= ticker.window.size.width,
              strip.height <= ticker.window.size.height else { return }
        for y in 0..<strip.height {
            let source = (ticker.window.base + y * ticker.window.stride).assumingMemoryBound(to: UInt32.self) + ticker.sourceX
            let target = (base + (strip.y + y) * stride).assumingMemoryBound(to: UInt32.self) + strip.x
            Self.lay(source, over: target, count: strip.width)
        }
    }

    /// Lays `layer` (premultiplied ARGB, this buffer's size) over this XRGB picture as a display
    /// composes a layers' plane over the video: a screenshot composed from kiosk's own buffers.
    public func composite(_ layer: PixelBuffer) {
        precondition(layer.size == size, "a layers' plane covers the screen")
        for y in 0..<size.height {
            let source = (layer.base + y * layer.stride).assumingMemoryBound(to: UInt32.self)
            let target = (base + y * stride).assumingMemoryBound(to: UInt32.self)
            Self.lay(source, over: target, count: size.width)
        }
    }

    /// `count` premultiplied ARGB pixels over as many XRGB ones, as a display composes them.
    private static func lay(_ source: UnsafeMutablePointer<UInt32>, over target: UnsafeMutablePointer<UInt32>, count: Int) {
        for x in 0..<count {
            let pixel = source[x]
            let alpha = pixel >> 24
            if alpha == 0 { continue }
            if alpha == 255 { target[x] = pixel & 0x00FF_FFFF; continue }
            // Premultiplied: the layer's colour plus what shows through it.
            let mixed = blend(target[x], 0, 255 - alpha, 0)
            target[x] = mixed &+ (pixel & 0x00FF_FFFF)
        }
    }
}
