/// Whole-pixel sizes and rectangles: what a scaler and a display plane are given.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible, Codable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public var transposed: PixelSize { PixelSize(width: height, height: width) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)x\(height)" }

    /// Parses "1280x800".
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
}

public struct PixelRect: Sendable, Hashable, CustomStringConvertible, Codable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public init(size: PixelSize) { self.init(x: 0, y: 0, width: size.width, height: size.height) }
    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// Clockwise rotation in quarter turns: a video's display-matrix tag, a portrait-mounted screen.
public enum Rotation: Int, Sendable, CaseIterable, Codable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// Any multiple of 90 degrees, negative or past a full turn; nil for anything else.
    public init?(degrees: Int) {
        let normalized = ((degrees % 360) + 360) % 360
        self.init(rawValue: normalized)
    }

    public var degrees: Int { rawValue }
    public var swapsAxes: Bool { self == .clockwise90 || self == .clockwise270 }
    public static func + (lhs: Rotation, rhs: Rotation) -> Rotation { Rotation(degrees: lhs.rawValue + rhs.rawValue)! }
    public var inverse: Rotation { Rotation(degrees: -rawValue)! }

    /// Where the unrotated rect `rect` of an image of `size` lands once the image is rotated.
    public func map(_ rect: PixelRect, in size: PixelSize) -> PixelRect {
        switch self {
        case .none: return rect
        case .clockwise90:
            return PixelRect(x: size.height - rect.maxY, y: rect.x, width: rect.height, height: rect.width)
        case .clockwise180:
            return PixelRect(x: size.width - rect.maxX, y: size.height - rect.maxY, width: rect.width, height: rect.height)
        case .clockwise270:
            return PixelRect(x: rect.y, y: size.width - rect.maxX, width: rect.height, height: rect.width)
        }
    }
}
