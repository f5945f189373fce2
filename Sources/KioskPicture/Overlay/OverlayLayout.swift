/// Where the overlay's parts go on a screen of a given size, as the viewer sees it (upright,
/// after the display rotation); `PixelBuffer.blend` turns them onto the panel. Everything is
/// proportional to the screen's shorter side, so a 640x480 panel and a 4K one look alike.
public struct OverlayLayout: Sendable, Equatable {
    /// The upright screen.
    public let screen: PixelSize
    public let margin: Int
    /// The progress bar's track, along the bottom.
    public let bar: PixelRect
    /// The darkened band behind the bar and its labels, so they read on any picture.
    public let bottomScrim: PixelRect
    /// The darkened band behind the title.
    public let topScrim: PixelRect
    /// Pixel size (em height) of the time labels, and their baseline.
    public let labelPixelSize: Int
    public let labelBaseline: Int
    public let titlePixelSize: Int
    public let titleBaseline: Int
    /// The play/pause glyph or spinner, centered.
    public let glyph: PixelRect

    public init(screen: PixelSize) {
        self.screen = screen
        let base = Swift.min(screen.width, screen.height)
        margin = Swift.max(4, base * 4 / 100)
        let gap = Swift.max(2, base * 2 / 100)
        let barHeight = Swift.max(3, base * 12 / 1000)
        bar = PixelRect(x: margin, y: screen.height - margin - barHeight,
                        width: Swift.max(0, screen.width - 2 * margin), height: barHeight)
        labelPixelSize = Swift.max(10, base * 45 / 1000)
        // Room under the baseline for descenders, then the gap to the bar.
        labelBaseline = bar.y - gap - labelPixelSize / 4
        let scrimTop = Swift.max(0, labelBaseline - labelPixelSize - gap)
        bottomScrim = PixelRect(x: 0, y: scrimTop, width: screen.width, height: screen.height - scrimTop)
        titlePixelSize = Swift.max(10, base * 5 / 100)
        titleBaseline = margin + titlePixelSize * 4 / 5
        topScrim = PixelRect(x: 0, y: 0, width: screen.width,
                             height: Swift.min(screen.height, titleBaseline + titlePixelSize / 4 + gap))
        let side = Swift.max(16, base * 16 / 100)
        glyph = PixelRect(x: (screen.width - side) / 2, y: (screen.height - side) / 2, width: side, height: side)
    }

    /// The upright screen for a buffer the engine draws turned by `rotation`.
    public static func viewerSize(buffer: PixelSize, rotation: Rotation) -> PixelSize {
        rotation.swapsAxes ? buffer.transposed : buffer
    }

    /// The filled part of the bar for `fraction` (0...1) of the item played.
    public func fill(fraction: Double) -> PixelRect {
        let clamped = Swift.min(1, Swift.max(0, fraction.isFinite ? fraction : 0))
        return PixelRect(x: bar.x, y: bar.y, width: Int((Double(bar.width) * clamped).rounded()), height: bar.height)
    }

    /// Top-left corner for the elapsed label (left-aligned on the bar's start).
    public func elapsedOrigin(ascent: Int) -> (x: Int, y: Int) { (bar.x, labelBaseline - ascent) }

    /// Top-left corner for the total label of `width` (right-aligned on the bar's end).
    public func totalOrigin(width: Int, ascent: Int) -> (x: Int, y: Int) { (bar.maxX - width, labelBaseline - ascent) }

    public func titleOrigin(ascent: Int) -> (x: Int, y: Int) { (margin, titleBaseline - ascent) }

    /// Top-left corner for a mask of `size` centered on the screen (the idle screen's line).
    public func centeredOrigin(size: PixelSize) -> (x: Int, y: Int) {
        ((screen.width - size.width) / 2, (screen.height - size.height) / 2)
    }

    /// The widest a line of text may be.
    public var textWidth: Int { Swift.max(1, screen.width - 2 * margin) }
}
