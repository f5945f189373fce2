/// Where a ticker's line is at a flip: it moves a whole number of pixels each refresh, the
/// same number every refresh (speed times the refresh interval, rounded; at least one), so it
/// moves without judder at any speed. The step count comes from the flip's own time on the
/// refresh grid, so a refresh the player skipped (a slow frame) moves it two steps, never
/// slows it down. The line enters at the strip's right edge and leaves at its left, then
/// comes again.
public struct TickerMotion: Sendable, Equatable {
    /// Pixels per refresh.
    public let step: Int
    public let refreshInterval: Double

    /// `speed`: pixels a second; `refreshInterval`: seconds between refreshes (> 0).
    public init(speed: Double, refreshInterval: Double) {
        let interval = refreshInterval > 0 && refreshInterval.isFinite ? refreshInterval : 1.0 / 60
        self.refreshInterval = interval
        step = max(1, Int((speed * interval).rounded()))
    }

    /// The speed really moved at, in pixels a second (what `step` rounds `speed` to).
    public var effectiveSpeed: Double { Double(step) / refreshInterval }

    /// How far the line has travelled at `flipTime` (seconds on the monotonic clock) since
    /// `startTime`, in whole steps: the refreshes between the two, counted on the grid.
    public func travelled(at flipTime: Double, since startTime: Double) -> Int {
        let refreshes = max(0, Int(((flipTime - startTime) / refreshInterval).rounded()))
        return refreshes * step
    }

    /// The line's left edge within a strip `stripWidth` wide, for a line `lineWidth` wide,
    /// having travelled `travelled` pixels: from `stripWidth` (just off the right edge) down to
    /// `-lineWidth` (just off the left), then again.
    public static func lineX(travelled: Int, lineWidth: Int, stripWidth: Int) -> Int {
        let cycle = max(1, lineWidth + stripWidth)
        return stripWidth - travelled % cycle
    }
}
