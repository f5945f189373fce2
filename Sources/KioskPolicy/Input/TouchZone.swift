/// A rectangle of the screen as the viewer sees it (after `display.rotation`, like every touch
/// point `TouchTransform` gives), where a tap fires a trigger: kiosk.conf's `zone: [x, y, w,
/// h]`, each side in pixels or in percent of the screen, so one file can serve screens of
/// different sizes.
public struct TouchZone: Sendable, Hashable, CustomStringConvertible {
    /// One of the four numbers.
    public enum Length: Sendable, Hashable, CustomStringConvertible {
        case pixels(Double)
        /// Of the screen's width (x, w) or height (y, h), 0...100.
        case percent(Double)

        public var description: String {
            switch self {
            case .pixels(let value): Self.text(value)
            case .percent(let value): Self.text(value) + "%"
            }
        }

        func resolved(along side: Int) -> Double {
            switch self {
            case .pixels(let value): value
            case .percent(let value): value / 100 * Double(side)
            }
        }

        private static func text(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
        }
    }

    public var x: Length
    public var y: Length
    public var width: Length
    public var height: Length

    public init(x: Length, y: Length, width: Length, height: Length) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var description: String { "[\(x), \(y), \(width), \(height)]" }

    /// The zone on a screen of `size` (the viewer's): left, top, right, bottom in continuous
    /// pixel coordinates (`ScreenPoint`'s), cut to the screen.
    public func bounds(on size: PixelSize) -> (left: Double, top: Double, right: Double, bottom: Double) {
        let left = x.resolved(along: size.width), top = y.resolved(along: size.height)
        let right = left + width.resolved(along: size.width), bottom = top + height.resolved(along: size.height)
        return (Swift.max(0, left), Swift.max(0, top), Swift.min(Double(size.width), right), Swift.min(Double(size.height), bottom))
    }

    /// Whether a tap at `point` lies in the zone. Half-open, [left, right) x [top, bottom), so
    /// two zones side by side never both take a tap on their shared edge; the screen's own
    /// right and bottom edges belong to a zone reaching them (a touch there is clamped onto them).
    public func contains(_ point: ScreenPoint, on size: PixelSize) -> Bool {
        let box = bounds(on: size)
        guard box.left < box.right, box.top < box.bottom else { return false }
        let inX = point.x >= box.left && (point.x < box.right || (box.right >= Double(size.width) && point.x <= box.right))
        let inY = point.y >= box.top && (point.y < box.bottom || (box.bottom >= Double(size.height) && point.y <= box.bottom))
        return inX && inY
    }

    /// Why the zone cannot be hit on a screen of `size` (it lies outside it); nil when it can.
    public func unreachable(on size: PixelSize) -> String? {
        let box = bounds(on: size)
        guard box.left >= box.right || box.top >= box.bottom else { return nil }
        return "zone \(self) lies outside the \(size) screen"
    }
}
