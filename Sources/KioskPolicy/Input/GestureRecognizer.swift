/// Turns raw touch samples into taps, double taps, swipes and scrubs. Pure and synchronous:
/// the input thread feeds it samples and, when `pendingDeadline` is set, calls `advance(to:)`
/// at that time (a single tap waits there while a double tap is still possible).
///
/// Only the first finger counts: a finger that touches while another is down is ignored, and
/// so is everything until all fingers are up again. A drag that starts in the bottom band and
/// goes sideways scrubs; elsewhere a fast, long, mostly horizontal stroke swipes; a short,
/// still touch taps; anything else (long press, slow or vertical drag) is nothing.
public struct GestureRecognizer: Sendable {
    public let screen: PixelSize
    public let thresholds: GestureThresholds

    /// The first finger's stroke.
    private struct Stroke: Sendable {
        let slot: Int
        let start: ScreenPoint
        let startTime: Double
        let startsInScrubBand: Bool
        var farthest = 0.0   // largest distance from `start` so far
        var scrubFraction: Double?   // set once the stroke is a scrub
    }

    /// A tap waiting to learn whether a second one makes it a double tap.
    private struct PendingTap: Sendable {
        let point: ScreenPoint
        let upTime: Double
    }

    private var fingersDown: Set<Int> = []
    private var stroke: Stroke?
    private var pendingTap: PendingTap?

    public init(screen: PixelSize, thresholds: GestureThresholds = GestureThresholds()) {
        self.screen = screen
        self.thresholds = thresholds
    }

    /// When `advance(to:)` must be called to release a pending single tap; nil if nothing waits.
    public var pendingDeadline: Double? {
        guard let pendingTap, stroke == nil else { return nil }
        return pendingTap.upTime + thresholds.doubleTapMaximumInterval
    }

    /// Feeds one sample; returns the gestures it completes or advances.
    public mutating func handle(_ sample: TouchSample) -> [Gesture] {
        switch sample.phase {
        case .down: return fingerDown(sample)
        case .move: return fingerMoved(sample)
        case .up: return fingerUp(sample)
        }
    }

    /// Releases a single tap whose double-tap window has passed by `time`.
    public mutating func advance(to time: Double) -> [Gesture] {
        guard let deadline = pendingDeadline, time > deadline, let tap = pendingTap else { return [] }
        pendingTap = nil
        return [.tap(at: tap.point)]
    }

    /// Forgets all fingers (the device dropped events or went away). A scrub in progress ends
    /// where it was, and a tap that was waiting is delivered, so nothing is left half done.
    public mutating func cancel() -> [Gesture] {
        var gestures: [Gesture] = []
        if let tap = pendingTap { gestures.append(.tap(at: tap.point)) }
        if let fraction = stroke?.scrubFraction { gestures.append(.scrubEnded(fraction: fraction)) }
        fingersDown = []
        stroke = nil
        pendingTap = nil
        return gestures
    }

    private mutating func fingerDown(_ sample: TouchSample) -> [Gesture] {
        defer { fingersDown.insert(sample.slot) }
        guard fingersDown.isEmpty, stroke == nil else { return [] }   // not the first finger
        var gestures = advance(to: sample.time)   // a tap whose window closed before this touch
        if let tap = pendingTap, distance(tap.point, sample.point) > doubleTapRadius {
            // Too far away to be the second tap of a double tap: the first is a single tap.
            pendingTap = nil
            gestures.append(.tap(at: tap.point))
        }
        let bandTop = Double(screen.height) * (1 - thresholds.scrubBandHeight)
        stroke = Stroke(slot: sample.slot, start: sample.point, startTime: sample.time,
                        startsInScrubBand: thresholds.scrubEnabled && sample.point.y >= bandTop)
        return gestures
    }

    private mutating func fingerMoved(_ sample: TouchSample) -> [Gesture] {
        guard var current = stroke, current.slot == sample.slot else { return [] }
        defer { stroke = current }
        current.farthest = Swift.max(current.farthest, distance(current.start, sample.point))
        let fraction = scrubFraction(sample.point)
        if let previous = current.scrubFraction {
            guard fraction != previous else { return [] }
            current.scrubFraction = fraction
            return [.scrubMoved(fraction: fraction)]
        }
        let dx = Swift.abs(sample.point.x - current.start.x), dy = Swift.abs(sample.point.y - current.start.y)
        guard current.startsInScrubBand, dx > stillRadius, dx >= dy else { return [] }
        current.scrubFraction = fraction
        return [.scrubBegan(fraction: fraction)]
    }

    private mutating func fingerUp(_ sample: TouchSample) -> [Gesture] {
        fingersDown.remove(sample.slot)
        guard let finished = stroke, finished.slot == sample.slot else { return [] }
        stroke = nil
        if finished.scrubFraction != nil { return [.scrubEnded(fraction: scrubFraction(sample.point))] }

        let duration = Swift.max(0, sample.time - finished.startTime)
        let farthest = Swift.max(finished.farthest, distance(finished.start, sample.point))
        if duration <= thresholds.tapMaximumDuration, farthest <= stillRadius {
            return tapped(at: finished.start, upTime: sample.time)
        }
        // Not a tap: a tap that was waiting for a second one was a single tap.
        var gestures: [Gesture] = []
        if let tap = pendingTap {
            pendingTap = nil
            gestures.append(.tap(at: tap.point))
        }
        let dx = sample.point.x - finished.start.x, dy = sample.point.y - finished.start.y
        if duration <= thresholds.swipeMaximumDuration,
           Swift.abs(dx) >= thresholds.swipeMinimumDistance * Double(screen.width),
           Swift.abs(dx) >= thresholds.swipeMinimumHorizontalRatio * Swift.abs(dy) {
            gestures.append(.swipe(dx < 0 ? .left : .right))
        }
        return gestures
    }

    private mutating func tapped(at point: ScreenPoint, upTime: Double) -> [Gesture] {
        guard thresholds.doubleTapEnabled else { return [.tap(at: point)] }
        if let first = pendingTap {   // still pending: this tap came within the window and radius
            pendingTap = nil
            return [.doubleTap(at: first.point)]
        }
        pendingTap = PendingTap(point: point, upTime: upTime)
        return []
    }

    private var shorterSide: Double { Double(Swift.min(screen.width, screen.height)) }
    private var stillRadius: Double { thresholds.tapMaximumMovement * shorterSide }
    private var doubleTapRadius: Double { thresholds.doubleTapMaximumDistance * shorterSide }

    private func scrubFraction(_ point: ScreenPoint) -> Double {
        guard screen.width > 0 else { return 0 }
        return Swift.min(1, Swift.max(0, point.x / Double(screen.width)))
    }

    private func distance(_ a: ScreenPoint, _ b: ScreenPoint) -> Double {
        let dx = a.x - b.x, dy = a.y - b.y
        return (dx * dx + dy * dy).squareRoot()
    }
}
