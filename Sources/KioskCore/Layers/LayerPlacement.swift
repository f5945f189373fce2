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
