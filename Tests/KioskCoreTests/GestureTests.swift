import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let screen = PixelSize(width: 1920, height: 1080)   // tap tolerance 32.4 px, swipe 288 px

private func point(_ x: Double, _ y: Double) -> ScreenPoint { ScreenPoint(x: x, y: y) }

/// A finger's stroke: down at the first point, moves through the rest, up at the last, the
/// points spread evenly over `duration` seconds from `start`.
private func stroke(_ points: [ScreenPoint], start: Double = 0, duration: Double, slot: Int = 0) -> [TouchSample] {
    points.enumerated().map { index, p in
        let phase: TouchPhase = index == 0 ? .down : (index == points.count - 1 ? .up : .move)
        let time = start + duration * Double(index) / Double(Swift.max(1, points.count - 1))
        return TouchSample(slot: slot, phase: phase, point: p, time: time)
    }
}

/// A straight line from `a` to `b` in `steps` moves.
private func line(_ a: ScreenPoint, _ b: ScreenPoint, steps: Int = 8) -> [ScreenPoint] {
    (0...steps).map { i in
        let f = Double(i) / Double(steps)
        return point(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
    }
}

private func feed(_ recognizer: inout GestureRecognizer, _ samples: [TouchSample]) -> [Gesture] {
    samples.flatMap { recognizer.handle($0) }
}

private func recognize(_ samples: [TouchSample], doubleTap: Bool = false) -> [Gesture] {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(doubleTapEnabled: doubleTap))
    return feed(&recognizer, samples)
}

struct TrackCase: Sendable, CustomStringConvertible {
    let name: String
    let samples: [TouchSample]
    let expected: [Gesture]
    var description: String { name }
}

let singleStrokeTable: [TrackCase] = [
    TrackCase(name: "tap with a little wobble",
              samples: stroke([point(500, 400), point(503, 398), point(505, 401)], duration: 0.12),
              expected: [.tap(at: point(500, 400))]),
    TrackCase(name: "long press is not a tap",
              samples: stroke([point(500, 400), point(501, 400), point(501, 401)], duration: 0.8),
              expected: []),
    TrackCase(name: "a short nudge is neither tap nor swipe",
              samples: stroke(line(point(500, 400), point(560, 400)), duration: 0.15),
              expected: []),
    TrackCase(name: "fast stroke to the left",
              samples: stroke(line(point(1400, 500), point(900, 540)), duration: 0.25),
              expected: [.swipe(.left)]),
    TrackCase(name: "fast stroke to the right",
              samples: stroke(line(point(300, 600), point(900, 560)), duration: 0.25),
              expected: [.swipe(.right)]),
    TrackCase(name: "just under 15% of the width",
              samples: stroke(line(point(800, 500), point(1080, 500)), duration: 0.2),
              expected: []),
    TrackCase(name: "just over 15% of the width",
              samples: stroke(line(point(800, 500), point(1092, 500)), duration: 0.2),
              expected: [.swipe(.right)]),
    TrackCase(name: "slow horizontal drag is not a swipe",
              samples: stroke(line(point(300, 500), point(1300, 500)), duration: 1.5),
              expected: []),
    TrackCase(name: "vertical drag does nothing",
              samples: stroke(line(point(900, 100), point(920, 800)), duration: 0.2),
              expected: []),
    TrackCase(name: "diagonal stroke is not mostly horizontal",
              samples: stroke(line(point(500, 200), point(900, 500)), duration: 0.2),
              expected: []),
    TrackCase(name: "tap in the bottom band is a tap, not a scrub",
              samples: stroke([point(960, 1050), point(962, 1049), point(963, 1050)], duration: 0.1),
              expected: [.tap(at: point(960, 1050))]),
    TrackCase(name: "vertical drag from the bottom band does not scrub",
              samples: stroke(line(point(960, 1050), point(980, 700)), duration: 0.3),
              expected: []),
    TrackCase(name: "scrub: begins past the tap tolerance, follows, clamps, ends where lifted",
              samples: stroke([point(200, 1000), point(220, 1000), point(480, 1000), point(960, 990),
                               point(2000, 1000), point(-50, 1010), point(1440, 1000)], duration: 2),
              expected: [.scrubBegan(fraction: 0.25), .scrubMoved(fraction: 0.5), .scrubMoved(fraction: 1),
                         .scrubMoved(fraction: 0), .scrubEnded(fraction: 0.75)]),
    TrackCase(name: "a fast sideways stroke in the band scrubs instead of swiping",
              samples: stroke([point(192, 1000), point(960, 1000), point(1728, 1000)], duration: 0.2),
              expected: [.scrubBegan(fraction: 0.5), .scrubEnded(fraction: 0.9)]),
    TrackCase(name: "a drag starting just above the band swipes, not scrubs",
              samples: stroke(line(point(300, 910), point(900, 915)), duration: 0.2),
              expected: [.swipe(.right)]),
]

@Test(arguments: singleStrokeTable)
func singleStrokes(_ track: TrackCase) {
    #expect(recognize(track.samples) == track.expected)
}

@Test func doubleTapWhenEnabled() {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(doubleTapEnabled: true))
    #expect(feed(&recognizer, stroke([point(700, 300), point(700, 300)], start: 0, duration: 0.1)) == [])
    #expect(abs((recognizer.pendingDeadline ?? 0) - 0.4) < 1e-9, "the first tap waits for the double-tap window")
    #expect(recognizer.advance(to: 0.3) == [])
    #expect(feed(&recognizer, stroke([point(720, 310), point(720, 310)], start: 0.3, duration: 0.08))
            == [.doubleTap(at: point(700, 300))])
    #expect(recognizer.pendingDeadline == nil)
}

@Test func aLoneTapWaitsOutTheWindowWhenDoubleTapIsEnabled() {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(doubleTapEnabled: true))
    #expect(feed(&recognizer, stroke([point(700, 300), point(700, 300)], start: 10, duration: 0.1)) == [])
    #expect(recognizer.advance(to: 10.39) == [])
    #expect(recognizer.advance(to: 10.41) == [.tap(at: point(700, 300))])
    #expect(recognizer.advance(to: 11) == [], "delivered once")
    // A second tap after the window is a new single tap.
    #expect(feed(&recognizer, stroke([point(700, 300), point(700, 300)], start: 11, duration: 0.1)) == [])
    #expect(recognizer.advance(to: 12) == [.tap(at: point(700, 300))])
}

@Test func twoQuickTapsAreTwoTapsWhenDoubleTapIsOff() {
    let taps = stroke([point(700, 300), point(700, 300)], start: 0, duration: 0.1)
        + stroke([point(705, 300), point(705, 300)], start: 0.2, duration: 0.1)
    #expect(recognize(taps) == [.tap(at: point(700, 300)), .tap(at: point(705, 300))])
}

@Test func doubleTapNeedsBothTapsInOnePlace() {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(doubleTapEnabled: true))
    _ = feed(&recognizer, stroke([point(200, 300), point(200, 300)], start: 0, duration: 0.1))
    // The second tap is across the screen: the first is released as a single tap at once.
    #expect(feed(&recognizer, stroke([point(1500, 300), point(1500, 300)], start: 0.2, duration: 0.1))
            == [.tap(at: point(200, 300))])
    #expect(recognizer.advance(to: 1) == [.tap(at: point(1500, 300))])
}

@Test func aTapFollowedBySwipeIsATapAndASwipe() {
    let samples = stroke([point(700, 300), point(700, 300)], start: 0, duration: 0.1)
        + stroke(line(point(700, 300), point(100, 300)), start: 0.2, duration: 0.2)
    #expect(recognize(samples, doubleTap: true) == [.tap(at: point(700, 300)), .swipe(.left)])
}

@Test func onlyTheFirstFingerCounts() {
    var recognizer = GestureRecognizer(screen: screen)
    let first = stroke([point(600, 400), point(601, 400), point(601, 401)], start: 0, duration: 0.15, slot: 0)
    let second = stroke(line(point(1500, 500), point(200, 500)), start: 0.01, duration: 0.1, slot: 1)
    // Interleaved by time, as the kernel reports them.
    let merged = (first + second).sorted { $0.time < $1.time }
    #expect(feed(&recognizer, merged) == [.tap(at: point(600, 400))])

    // The first finger lifts while the second is still down: the second never counts.
    let lingering = [TouchSample(slot: 0, phase: .down, point: point(100, 100), time: 1),
                     TouchSample(slot: 1, phase: .down, point: point(1500, 500), time: 1.05),
                     TouchSample(slot: 0, phase: .up, point: point(100, 100), time: 1.1),
                     TouchSample(slot: 1, phase: .move, point: point(800, 500), time: 1.15),
                     TouchSample(slot: 1, phase: .up, point: point(200, 500), time: 1.2)]
    #expect(feed(&recognizer, lingering) == [.tap(at: point(100, 100))])
    // With all fingers up, a new stroke is recognised again.
    #expect(feed(&recognizer, stroke(line(point(1500, 500), point(200, 500)), start: 2, duration: 0.2, slot: 1))
            == [.swipe(.left)])
}

@Test func cancelEndsAScrubAndDeliversAWaitingTap() {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(doubleTapEnabled: true))
    let partial = [TouchSample(slot: 3, phase: .down, point: point(960, 1000), time: 0.1),
                   TouchSample(slot: 3, phase: .move, point: point(1152, 1000), time: 0.2)]
    #expect(feed(&recognizer, partial) == [.scrubBegan(fraction: 0.6)])
    #expect(recognizer.cancel() == [.scrubEnded(fraction: 0.6)])
    #expect(recognizer.cancel() == [])
    // The finger's late up after the cancel is ignored; the next stroke works.
    #expect(recognizer.handle(TouchSample(slot: 3, phase: .up, point: point(1200, 1000), time: 0.3)) == [])
    _ = feed(&recognizer, stroke([point(50, 50), point(50, 50)], start: 1, duration: 0.05))
    #expect(recognizer.cancel() == [.tap(at: point(50, 50))], "a tap waiting for a second one is not lost")
    #expect(feed(&recognizer, stroke(line(point(1500, 500), point(200, 500)), start: 2, duration: 0.2)) == [.swipe(.left)])
}

@Test func withScrubOffABandDragIsAnOrdinaryStroke() {
    var recognizer = GestureRecognizer(screen: screen, thresholds: GestureThresholds(scrubEnabled: false))
    #expect(feed(&recognizer, stroke(line(point(1500, 1000), point(300, 1000)), duration: 0.2)) == [.swipe(.left)])
    #expect(feed(&recognizer, stroke(line(point(200, 1000), point(1400, 1000)), start: 1, duration: 2)) == [])
}
