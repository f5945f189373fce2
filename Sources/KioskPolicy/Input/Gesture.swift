/// Touch input as the gesture recognizer takes it, and the gestures it produces.

public enum TouchPhase: String, Sendable, Hashable {
    /// A finger touched (ABS_MT_TRACKING_ID set on a slot).
    case down
    /// It moved (ABS_MT_POSITION_X/Y, reported at SYN_REPORT).
    case move
    /// It lifted (tracking id -1). The point is the last one known.
    case up
}

/// One finger's state at one SYN_REPORT, already mapped to viewer screen pixels.
public struct TouchSample: Sendable, Hashable {
    /// The multi-touch slot (or tracking id): which finger.
    public var slot: Int
    public var phase: TouchPhase
    public var point: ScreenPoint
    /// The event's timestamp in seconds (CLOCK_MONOTONIC).
    public var time: Double

    public init(slot: Int, phase: TouchPhase, point: ScreenPoint, time: Double) {
        self.slot = slot; self.phase = phase; self.point = point; self.time = time
    }
}

public enum SwipeDirection: String, Sendable, Hashable {
    /// The finger moved toward the left edge (x decreasing).
    case left
    /// The finger moved toward the right edge (x increasing).
    case right
}

public enum Gesture: Sendable, Hashable {
    /// A short, still touch; `at` is where the finger went down.
    case tap(at: ScreenPoint)
    /// Two taps close in time and place (only when enabled); `at` is the first tap's point.
    case doubleTap(at: ScreenPoint)
    case swipe(SwipeDirection)
    /// A horizontal drag from the bottom band began; `fraction` is x / width, 0...1.
    case scrubBegan(fraction: Double)
    case scrubMoved(fraction: Double)
    case scrubEnded(fraction: Double)
}

/// The thresholds that tell gestures apart. Distances are fractions of the screen so that one
/// set works from 640x480 to 4K; times are seconds.
public struct GestureThresholds: Sendable, Hashable {
    /// A tap lasts at most this long from down to up. Longer is a long press: not a tap.
    public var tapMaximumDuration: Double
    /// A tap moves at most this fraction of the screen's shorter side (fingers wobble; 3% is
    /// about 30 px on a 1080-line screen). Moving further makes it a drag. Also how far a drag
    /// from the bottom band must go sideways before it is a scrub.
    public var tapMaximumMovement: Double
    /// Whether two quick taps are one `doubleTap`. Off by default, because it makes every
    /// single tap wait `doubleTapMaximumInterval` to be sure no second one follows.
    public var doubleTapEnabled: Bool
    /// The longest gap between the first tap's up and the second tap's down.
    public var doubleTapMaximumInterval: Double
    /// The farthest apart the two taps may be, as a fraction of the shorter side.
    public var doubleTapMaximumDistance: Double
    /// A swipe covers at least this fraction of the screen width, left or right.
    public var swipeMinimumDistance: Double
    /// …within this many seconds (a swipe is fast; a slow drag is not a swipe).
    public var swipeMaximumDuration: Double
    /// …and is mostly horizontal: |dx| at least this many times |dy|.
    public var swipeMinimumHorizontalRatio: Double
    /// Whether a drag from the bottom band scrubs (kiosk.conf `input.gestures.scrub`). When
    /// off, such a drag is an ordinary stroke and may swipe.
    public var scrubEnabled: Bool
    /// A drag that starts in this bottom fraction of the screen height scrubs the timeline.
    public var scrubBandHeight: Double

    public init(tapMaximumDuration: Double = 0.35, tapMaximumMovement: Double = 0.03,
                doubleTapEnabled: Bool = false, doubleTapMaximumInterval: Double = 0.3,
                doubleTapMaximumDistance: Double = 0.08, swipeMinimumDistance: Double = 0.15,
                swipeMaximumDuration: Double = 0.6, swipeMinimumHorizontalRatio: Double = 2,
                scrubEnabled: Bool = true, scrubBandHeight: Double = 0.15) {
        self.tapMaximumDuration = tapMaximumDuration
        self.tapMaximumMovement = tapMaximumMovement
        self.doubleTapEnabled = doubleTapEnabled
        self.doubleTapMaximumInterval = doubleTapMaximumInterval
        self.doubleTapMaximumDistance = doubleTapMaximumDistance
        self.swipeMinimumDistance = swipeMinimumDistance
        self.swipeMaximumDuration = swipeMaximumDuration
        self.swipeMinimumHorizontalRatio = swipeMinimumHorizontalRatio
        self.scrubEnabled = scrubEnabled
        self.scrubBandHeight = scrubBandHeight
    }
}
