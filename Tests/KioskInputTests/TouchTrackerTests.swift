import KioskCore
import Testing
@testable import KioskInput

/// Raw 0...1000 on both axes mapped to a 1000x500 screen: x reads as pixels, y as half.
private func tracker(slots: Bool = true, rotation: Rotation = .none,
                     scanout: PixelSize = PixelSize(width: 1000, height: 500)) throws -> TouchTracker {
    let transform = try TouchTransform(rawX: 0...1000, rawY: 0...1000, scanout: scanout, rotation: rotation, device: "test")
    return TouchTracker(transform: transform, usesSlots: slots)
}

private func samples(_ script: String, tracker: inout TouchTracker) throws -> [TouchSample] {
    try EventScript.parse(script).flatMap { tracker.handle($0) }
}

private func s(_ slot: Int, _ phase: TouchPhase, _ x: Double, _ y: Double, _ time: Double) -> TouchSample {
    TouchSample(slot: slot, phase: phase, point: ScreenPoint(x: x, y: y), time: time)
}

struct TrackerCase: Sendable, CustomStringConvertible {
    let name: String
    let slots: Bool
    let script: String
    let expected: [TouchSample]
    var description: String { name }
}

/// Sequences as a multi-touch panel (protocol B) and a single-touch one send them.
let trackerTable: [TrackerCase] = [
    TrackerCase(name: "one finger: down, move, up", slots: true, script: """
        0.000 ABS_MT_SLOT 0
        0.000 ABS_MT_TRACKING_ID 7
        0.000 ABS_MT_POSITION_X 100
        0.000 ABS_MT_POSITION_Y 200
        0.000 BTN_TOUCH 1
        0.000 ABS_X 100
        0.000 ABS_Y 200
        0.000 SYN_REPORT
        0.010 ABS_MT_POSITION_X 150
        0.010 ABS_X 150
        0.010 SYN_REPORT
        0.020 ABS_MT_TRACKING_ID -1
        0.020 BTN_TOUCH 0
        0.020 SYN_REPORT
        """, expected: [s(0, .down, 100, 100, 0), s(0, .move, 150, 100, 0.01), s(0, .up, 150, 100, 0.02)]),
    TrackerCase(name: "the kernel sends only what changed: a new contact keeps the slot's last y", slots: true, script: """
        0.000 ABS_MT_TRACKING_ID 1
        0.000 ABS_MT_POSITION_X 300
        0.000 ABS_MT_POSITION_Y 400
        0.000 SYN_REPORT
        0.050 ABS_MT_TRACKING_ID -1
        0.050 SYN_REPORT
        0.300 ABS_MT_TRACKING_ID 2
        0.300 ABS_MT_POSITION_X 600
        0.300 SYN_REPORT
        """, expected: [s(0, .down, 300, 200, 0), s(0, .up, 300, 200, 0.05), s(0, .down, 600, 200, 0.3)]),
    TrackerCase(name: "two fingers in two slots, second lifts first", slots: true, script: """
        0.000 ABS_MT_SLOT 0
        0.000 ABS_MT_TRACKING_ID 10
        0.000 ABS_MT_POSITION_X 100
        0.000 ABS_MT_POSITION_Y 100
        0.000 SYN_REPORT
        0.020 ABS_MT_SLOT 1
        0.020 ABS_MT_TRACKING_ID 11
        0.020 ABS_MT_POSITION_X 800
        0.020 ABS_MT_POSITION_Y 800
        0.020 SYN_REPORT
        0.040 ABS_MT_SLOT 0
        0.040 ABS_MT_POSITION_X 120
        0.040 ABS_MT_SLOT 1
        0.040 ABS_MT_TRACKING_ID -1
        0.040 SYN_REPORT
        """, expected: [s(0, .down, 100, 50, 0), s(1, .down, 800, 400, 0.02),
                        s(0, .move, 120, 50, 0.04), s(1, .up, 800, 400, 0.04)]),
    TrackerCase(name: "a contact replaced in the same frame: up of the old, down of the new", slots: true, script: """
        0.000 ABS_MT_TRACKING_ID 3
        0.000 ABS_MT_POSITION_X 100
        0.000 ABS_MT_POSITION_Y 100
        0.000 SYN_REPORT
        0.030 ABS_MT_TRACKING_ID 4
        0.030 ABS_MT_POSITION_X 900
        0.030 ABS_MT_POSITION_Y 900
        0.030 SYN_REPORT
        """, expected: [s(0, .down, 100, 50, 0), s(0, .up, 100, 50, 0.03), s(0, .down, 900, 450, 0.03)]),
    TrackerCase(name: "events without SYN_REPORT report nothing yet", slots: true, script: """
        0.000 ABS_MT_TRACKING_ID 3
        0.000 ABS_MT_POSITION_X 100
        """, expected: []),
    TrackerCase(name: "single-touch panel: BTN_TOUCH with ABS_X/ABS_Y", slots: false, script: """
        0.000 ABS_X 500
        0.000 ABS_Y 500
        0.000 BTN_TOUCH 1
        0.000 SYN_REPORT
        0.016 ABS_Y 520
        0.016 SYN_REPORT
        0.032 BTN_TOUCH 0
        0.032 SYN_REPORT
        """, expected: [s(0, .down, 500, 250, 0), s(0, .move, 500, 260, 0.016), s(0, .up, 500, 260, 0.032)]),
    TrackerCase(name: "slots mode ignores the single-touch emulation", slots: true, script: """
        0.000 BTN_TOUCH 1
        0.000 ABS_X 500
        0.000 SYN_REPORT
        """, expected: []),
    TrackerCase(name: "readings beyond the advertised range clamp to the edge", slots: true, script: """
        0.000 ABS_MT_TRACKING_ID 1
        0.000 ABS_MT_POSITION_X 1100
        0.000 ABS_MT_POSITION_Y -20
        0.000 SYN_REPORT
        """, expected: [s(0, .down, 1000, 0, 0)]),
]

@Suite struct TouchTrackerTests {
    @Test(arguments: trackerTable)
    func recordedSequences(_ c: TrackerCase) throws {
        var t = try tracker(slots: c.slots)
        #expect(try samples(c.script, tracker: &t) == c.expected)
    }

    @Test func rotatedDisplayTurnsTouchesBack() throws {
        // Panel 1000x500 scanning out, picture turned 90° clockwise: the viewer sees 500x1000.
        // The panel's top-right corner is the viewer's top-left, its top-left the viewer's
        // bottom-left.
        var t = try tracker(rotation: .clockwise90)
        let got = try samples("""
            0.0 ABS_MT_TRACKING_ID 1
            0.0 ABS_MT_POSITION_X 1000
            0.0 ABS_MT_POSITION_Y 0
            0.0 SYN_REPORT
            0.1 ABS_MT_POSITION_X 0
            0.1 SYN_REPORT
            """, tracker: &t)
        #expect(got == [s(0, .down, 0, 0, 0), s(0, .move, 0, 1000, 0.1)])
        #expect(t.transform.screen == PixelSize(width: 500, height: 1000))
    }

    @Test func afterResyncAFingerStillDownIsIgnoredUntilItLifts() throws {
        var t = try tracker()
        _ = try samples("""
            0.0 ABS_MT_TRACKING_ID 1
            0.0 ABS_MT_POSITION_X 100
            0.0 ABS_MT_POSITION_Y 100
            0.0 SYN_REPORT
            """, tracker: &t)
        // SYN_DROPPED: the sync events say the finger moved; their samples are discarded.
        _ = try samples("0.5 ABS_MT_POSITION_X 400\n0.5 SYN_REPORT", tracker: &t)
        t.resynchronized()
        let during = try samples("0.6 ABS_MT_POSITION_X 450\n0.6 SYN_REPORT\n0.7 ABS_MT_TRACKING_ID -1\n0.7 SYN_REPORT", tracker: &t)
        #expect(during.isEmpty, "a finger from before the drop must not be reported: \(during)")
        let next = try samples("1.0 ABS_MT_TRACKING_ID 2\n1.0 ABS_MT_POSITION_X 700\n1.0 SYN_REPORT", tracker: &t)
        #expect(next == [s(0, .down, 700, 50, 1.0)])
    }

    @Test func recordedSwipeAndTapBecomeGestures() throws {
        // A whole recording through tracker and recognizer, as the input thread runs them.
        var t = try tracker()
        var recognizer = GestureRecognizer(screen: t.transform.screen)
        var script = "0.00 ABS_MT_TRACKING_ID 5\n0.00 ABS_MT_POSITION_X 800\n0.00 ABS_MT_POSITION_Y 500\n0.00 SYN_REPORT\n"
        for (i, x) in stride(from: 750, through: 300, by: -50).enumerated() {
            let time = 0.02 * Double(i + 1)
            script += "\(time) ABS_MT_POSITION_X \(x)\n\(time) SYN_REPORT\n"
        }
        script += "0.3 ABS_MT_TRACKING_ID -1\n0.3 SYN_REPORT\n"
        script += "1.0 ABS_MT_TRACKING_ID 6\n1.0 ABS_MT_POSITION_X 500\n1.0 SYN_REPORT\n1.1 ABS_MT_TRACKING_ID -1\n1.1 SYN_REPORT\n"
        let gestures = try samples(script, tracker: &t).flatMap { recognizer.handle($0) }
        #expect(gestures == [.swipe(.left), .tap(at: ScreenPoint(x: 500, y: 250))])
    }

    @Test func scriptTyposFailTheTest() {
        #expect(throws: EventScript.ParseError.self) { try EventScript.parse("0.0 ABS_MT_POSITON_X 5") }
    }
}
