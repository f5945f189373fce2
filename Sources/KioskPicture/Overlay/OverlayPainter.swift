/// Draws the overlay and the idle screen into a frame buffer that already holds the picture.
/// Owned by the presenter thread. Text goes through a `TextRasterizer` (FreeType in the
/// player); rendered lines and shapes are kept while they stay the same, since the labels
/// change once a second at most and a frame comes every 16-40 ms.
public final class OverlayPainter {
    public static let textColor: UInt32 = 0xFFFFFF
    public static let barFillColor: UInt32 = 0xFFFFFF
    /// Opaque: a screenshot can tell the bar's two parts apart whatever the picture below.
    public static let barTrackColor: UInt32 = 0x505050
    public static let idleTextColor: UInt32 = 0xC0C0C0
    static let scrimOpacity: UInt8 = 128

    private let rasterizer: TextRasterizer
    private var layout: OverlayLayout?
    private var textCache: [TextKey: RenderedText] = [:]
    private var shapeCache: [ShapeKey: AlphaMask] = [:]

    private struct TextKey: Hashable { let text: String; let pixelSize: Int }
    private enum ShapeKey: Hashable { case play(Int), pause(Int), spinner(Int, Int), disc(Int) }

    public init(rasterizer: TextRasterizer) {
        self.rasterizer = rasterizer
    }

    /// The layout for `buffer` as the viewer sees it (made again when the screen changes).
    public func layout(for buffer: PixelBuffer, rotation: Rotation) -> OverlayLayout {
        let viewer = OverlayLayout.viewerSize(buffer: buffer.size, rotation: rotation)
        if let layout, layout.screen == viewer { return layout }
        let made = OverlayLayout(screen: viewer)
        layout = made
        textCache.removeAll()
        shapeCache.removeAll()
        return made
    }

    public func paint(_ content: OverlayContent, into buffer: PixelBuffer, rotation: Rotation) {
        let layout = layout(for: buffer, rotation: rotation)
        buffer.blendFill(layout.topScrim, color: 0, opacity: Self.scrimOpacity, rotation: rotation)
        buffer.blendFill(layout.bottomScrim, color: 0, opacity: Self.scrimOpacity, rotation: rotation)

        let title = text(fitting(content.title, pixelSize: layout.titlePixelSize, width: layout.textWidth),
                         pixelSize: layout.titlePixelSize)
        buffer.blend(title, at: layout.titleOrigin(ascent: title.ascent), color: Self.textColor, rotation: rotation)

        buffer.blendFill(layout.bar, color: Self.barTrackColor, rotation: rotation)
        buffer.blendFill(layout.fill(fraction: content.fraction), color: Self.barFillColor, rotation: rotation)
        let elapsed = text(content.elapsed, pixelSize: layout.labelPixelSize)
        buffer.blend(elapsed, at: layout.elapsedOrigin(ascent: elapsed.ascent), color: Self.textColor, rotation: rotation)
        let total = text(content.total, pixelSize: layout.labelPixelSize)
        buffer.blend(total, at: layout.totalOrigin(width: total.mask.width, ascent: total.ascent),
                     color: Self.textColor, rotation: rotation)

        let side = layout.glyph.width
        let origin = (x: layout.glyph.x, y: layout.glyph.y)
        buffer.blend(shape(.disc(side)), at: origin, color: 0, opacity: Self.scrimOpacity, rotation: rotation)
        let glyph: AlphaMask
        switch content.center {
        case .play: glyph = shape(.play(side))
        case .pause: glyph = shape(.pause(side))
        case .spinner(let phase): glyph = shape(.spinner(side, phase))
        }
        buffer.blend(glyph, at: origin, color: Self.textColor, rotation: rotation)
    }

    /// The idle screen: black, one centered line saying why nothing plays.
    /// `overPicture`: the buffer already holds the idle picture (the splash), kept under the line.
    public func paintIdle(reason: String, into buffer: PixelBuffer, rotation: Rotation, overPicture: Bool = false) {
        let layout = layout(for: buffer, rotation: rotation)
        if !overPicture { buffer.fill(PixelRect(size: buffer.size)) }
        var pixelSize = layout.labelPixelSize
        var line = text(reason, pixelSize: pixelSize)
        if line.mask.width > layout.textWidth {
            // A long reason on a small screen: smaller letters rather than a cut line.
            pixelSize = Swift.max(8, pixelSize * layout.textWidth / line.mask.width)
            line = text(reason, pixelSize: pixelSize)
        }
        let origin = layout.centeredOrigin(size: PixelSize(width: line.mask.width, height: line.mask.height))
        buffer.blend(line, at: origin, color: Self.idleTextColor, rotation: rotation)
    }

    /// `text` cut with an ellipsis so that it fits in `width`.
    private func fitting(_ text: String, pixelSize: Int, width: Int) -> String {
        guard self.text(text, pixelSize: pixelSize).mask.width > width else { return text }
        var characters = Array(text)
        while !characters.isEmpty {
            characters.removeLast()
            let candidate = String(characters) + "…"
            if self.text(candidate, pixelSize: pixelSize).mask.width <= width { return candidate }
        }
        return ""
    }

    private func text(_ text: String, pixelSize: Int) -> RenderedText {
        let key = TextKey(text: text, pixelSize: pixelSize)
        if let cached = textCache[key] { return cached }
        if textCache.count > 64 { textCache.removeAll() }   // labels tick by: keep the cache small
        let rendered = rasterizer.render(text, pixelSize: pixelSize)
        textCache[key] = rendered
        return rendered
    }

    private func shape(_ key: ShapeKey) -> AlphaMask {
        if let cached = shapeCache[key] { return cached }
        let mask: AlphaMask
        switch key {
        case .play(let side): mask = OverlayShapes.play(side: side)
        case .pause(let side): mask = OverlayShapes.pause(side: side)
        case .spinner(let side, let phase): mask = OverlayShapes.spinner(side: side, phase: phase)
        case .disc(let side): mask = OverlayShapes.disc(side: side)
        }
        shapeCache[key] = mask
        return mask
    }
}
