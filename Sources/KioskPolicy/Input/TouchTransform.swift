/// A point on the screen as the viewer sees it, in continuous pixel coordinates: (0, 0) is the
/// top-left corner of the top-left pixel, (width, height) the bottom-right corner of the last
/// one, so `x / width` is exactly the fraction across the screen.
public struct ScreenPoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public var description: String { "(\(x), \(y))" }
}

/// Why a touch device cannot be mapped; names the device so the log says which one.
public struct TouchTransformError: Error, Sendable, Hashable, CustomStringConvertible {
    public let device: String
    public let reason: String
    public var description: String { "touch device \(device): \(reason)" }
}

/// Maps a touch panel's raw absolute coordinates (ABS_MT_POSITION_X/Y, with the device's
/// min...max) to viewer screen pixels, including the display rotation.
///
/// The panel reports in its native orientation, the same as the display's scanout. `rotation`
/// is the display rotation in kiosk's sense (like xrandr's and the Raspberry Pi's): the picture
/// is turned clockwise by it on the panel, so that a panel mounted turned counter-clockwise by
/// the same amount shows it upright. A touch is turned back by the inverse rotation, so that
/// "left", "right" and "the bottom of the screen" are the viewer's.
public struct TouchTransform: Sendable, Hashable {
    public let rawX: ClosedRange<Int>
    public let rawY: ClosedRange<Int>
    public let rotation: Rotation
    /// The screen as the viewer sees it: the scanout size, transposed for 90 and 270.
    public let screen: PixelSize

    /// - Parameters:
    ///   - rawX, rawY: the device's absolute axis ranges (input_absinfo minimum...maximum).
    ///   - scanout: the display mode's size (the panel's native orientation).
    ///   - rotation: the display rotation.
    ///   - device: the device's name or path, for the error message.
    public init(rawX: ClosedRange<Int>, rawY: ClosedRange<Int>, scanout: PixelSize, rotation: Rotation,
                device: String) throws(TouchTransformError) {
        guard rawX.upperBound > rawX.lowerBound else {
            throw TouchTransformError(device: device, reason: "x axis range \(rawX) is empty; cannot map touches")
        }
        guard rawY.upperBound > rawY.lowerBound else {
            throw TouchTransformError(device: device, reason: "y axis range \(rawY) is empty; cannot map touches")
        }
        guard !scanout.isEmpty else {
            throw TouchTransformError(device: device, reason: "display size \(scanout) is empty")
        }
        self.rawX = rawX
        self.rawY = rawY
        self.rotation = rotation
        self.screen = rotation.swapsAxes ? scanout.transposed : scanout
    }

    /// The viewer's screen point for a raw device reading. Readings outside the advertised range
    /// (some panels overshoot at the edges) are clamped to the screen's edge.
    public func screenPoint(rawX x: Int, rawY y: Int) -> ScreenPoint {
        let u = Self.fraction(x, of: rawX), v = Self.fraction(y, of: rawY)
        // (u, v): fractions across the panel as it scans out. The picture was turned clockwise
        // by `rotation` to get there; turn the point back.
        let (across, down): (Double, Double)
        switch rotation {
        case .none: (across, down) = (u, v)
        case .clockwise90: (across, down) = (v, 1 - u)
        case .clockwise180: (across, down) = (1 - u, 1 - v)
        case .clockwise270: (across, down) = (1 - v, u)
        }
        return ScreenPoint(x: across * Double(screen.width), y: down * Double(screen.height))
    }

    private static func fraction(_ value: Int, of range: ClosedRange<Int>) -> Double {
        let clamped = Swift.min(Swift.max(value, range.lowerBound), range.upperBound)
        return Double(clamped - range.lowerBound) / Double(range.upperBound - range.lowerBound)
    }
}
