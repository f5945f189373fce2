/// Where a layer's box goes on the screen (in the viewer's upright coordinates): pure
/// geometry, so the corners, edges and margins are table-tested without a display.
public enum LayerPlacement {
    /// The box of `content` (its size in pixels) at `position`, `margin` pixels in from the
    /// edges it touches (centred along the others). A box larger than the screen is cut by
    /// the drawing, not moved: its anchor corner stays where the position says.
    public static func rect(of content: PixelSize, at position: LayerPosition, margin: Int, on screen: PixelSize) -> PixelRect {
        let left = margin
        let right = screen.width - margin - content.width
        let centreX = (screen.width - content.width) / 2
        let top = margin
        let bottom = screen.height - margin - content.height
        let centreY = (screen.height - content.height) / 2
        let (x, y): (Int, Int)
        switch position {
        case .topLeft: (x, y) = (left, top)
        case .top: (x, y) = (centreX, top)
        case .topRight: (x, y) = (right, top)
        case .left: (x, y) = (left, centreY)
        case .center: (x, y) = (centreX, centreY)
        case .right: (x, y) = (right, centreY)
        case .bottomLeft: (x, y) = (left, bottom)
        case .bottom: (x, y) = (centreX, bottom)
        case .bottomRight: (x, y) = (right, bottom)
        }
        return PixelRect(x: x, y: y, width: content.width, height: content.height)
    }

    /// Text's pixel size (`size` of the screen's height) and the padding around it inside its
    /// background box (a quarter of the text size: room for descenders and the box's edge).
    public static func textMetrics(size: LayerLength, screen: PixelSize) -> (pixelSize: Int, padding: Int) {
        let pixelSize = max(6, min(size.pixels(of: screen.height), screen.height))
        return (pixelSize, max(2, pixelSize / 4))
    }

    /// An image's size on the screen: `width` of the screen's width (nil: its own size), the
    /// height in proportion, never under 1 pixel.
    public static func imageSize(_ natural: PixelSize, width: LayerLength?, screen: PixelSize) -> PixelSize {
        guard let width, natural.width > 0, natural.height > 0 else { return natural }
        let target = max(1, min(width.pixels(of: screen.width), 4 * screen.width))
        let height = max(1, Int((Double(natural.height) * Double(target) / Double(natural.width)).rounded()))
        return PixelSize(width: target, height: height)
    }
}

extension LayerPlacement {
    /// A rectangle in the viewer's upright coordinates as it lies in a buffer the engine fills
    /// turned by `rotation` (the strip a ticker's refresh copies).
    public static func bufferRect(_ rect: PixelRect, viewer: PixelSize, rotation: Rotation) -> PixelRect {
        guard rect.width > 0, rect.height > 0 else { return PixelRect(x: rect.x, y: rect.y, width: 0, height: 0) }
        let a = PixelBuffer.bufferPoint(x: rect.x, y: rect.y, viewer: viewer, rotation: rotation)
        let b = PixelBuffer.bufferPoint(x: rect.maxX - 1, y: rect.maxY - 1, viewer: viewer, rotation: rotation)
        let x = min(a.0, b.0), y = min(a.1, b.1)
        return PixelRect(x: x, y: y, width: abs(a.0 - b.0) + 1, height: abs(a.1 - b.1) + 1)
    }

    /// A ticker's strip: the screen's whole width, the text's height plus padding, at the top,
    /// the bottom (`margin` in from the edge) or the middle.
    public static func tickerStrip(height: Int, at position: LayerPosition, margin: Int, on screen: PixelSize) -> PixelRect {
        let y: Int
        switch position {
        case .top, .topLeft, .topRight: y = margin
        case .left, .center, .right: y = (screen.height - height) / 2
        case .bottom, .bottomLeft, .bottomRight: y = screen.height - margin - height
        }
        return PixelRect(x: 0, y: y, width: screen.width, height: height)
    }
}

/// kiosk.conf `playback.region`: a rectangle of the screen, each side in pixels or a share of
/// the screen's width or height.
public struct ScreenRegion: Sendable, Equatable {
    public var x: LayerLength
    public var y: LayerLength
    public var width: LayerLength
    public var height: LayerLength

    public init(x: LayerLength, y: LayerLength, width: LayerLength, height: LayerLength) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// In pixels on a screen of `screen` (the viewer's upright size), cut to the screen; nil
    /// when nothing of it is left (a region in pixels larger than a smaller screen's edge).
    public func rect(on screen: PixelSize) -> PixelRect? {
        let x0 = max(0, x.pixels(of: screen.width)), y0 = max(0, y.pixels(of: screen.height))
        let x1 = min(screen.width, x0 + width.pixels(of: screen.width))
        let y1 = min(screen.height, y0 + height.pixels(of: screen.height))
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

extension GravityLayout {
    /// The layout moved into `region` (buffer coordinates) of a `target` buffer: laid out on
    /// the region as on a screen of its size, then placed there.
    public func placed(in region: PixelRect, of target: PixelSize) -> GravityLayout {
        var moved = self
        moved.destination.x += region.x
        moved.destination.y += region.y
        moved.target = target
        return moved
    }
}

extension GravityLayout {
    /// Where a picture of `source` (sample aspect, rotation tag) goes on a display's buffer of
    /// `buffer`: with `gravity` on the whole screen, or within `region` (kiosk.conf
    /// `playback.region`, in the viewer's coordinates); turned by `softwareRotation` where the
    /// CPU turns the screen's picture. The one rule the presenter draws by and `kiosk probe FILE`
    /// answers with.
    public static func onScreen(source: PixelSize, sampleAspect: Rational, rotation: Rotation, buffer: PixelSize,
                                softwareRotation: Rotation, gravity: VideoGravity, region: ScreenRegion?) -> GravityLayout {
        let turned = rotation + softwareRotation
        let viewer = OverlayLayout.viewerSize(buffer: buffer, rotation: softwareRotation)
        guard let region, let rect = region.rect(on: viewer) else {
            return GravityLayout(source: source, sampleAspect: sampleAspect, rotation: turned, target: buffer, gravity: gravity)
        }
        let inBuffer = LayerPlacement.bufferRect(rect, viewer: viewer, rotation: softwareRotation)
        return GravityLayout(source: source, sampleAspect: sampleAspect, rotation: turned, target: inBuffer.size, gravity: gravity)
            .placed(in: inBuffer, of: buffer)
    }
}
