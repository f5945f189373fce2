import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// A panel whose axes do not start at 0 and differ in resolution, to catch mixed-up ranges.
private let rawX = 0...32767
private let rawY = 100...4195
private let scanout = PixelSize(width: 1920, height: 1080)

struct CornerCase: Sendable, CustomStringConvertible {
    let rotation: Rotation
    /// Where the panel's raw top-left, top-right, bottom-left and bottom-right land on the
    /// viewer's screen.
    let corners: [ScreenPoint]
    let screen: PixelSize
    var description: String { "rotation \(rotation.degrees)" }
}

private func p(_ x: Double, _ y: Double) -> ScreenPoint { ScreenPoint(x: x, y: y) }

let cornerTable: [CornerCase] = [
    CornerCase(rotation: .none, corners: [p(0, 0), p(1920, 0), p(0, 1080), p(1920, 1080)],
               screen: PixelSize(width: 1920, height: 1080)),
    // The picture is turned clockwise onto the panel (a panel mounted turned counter-clockwise):
    // the panel's top-left shows the picture's bottom-left.
    CornerCase(rotation: .clockwise90, corners: [p(0, 1920), p(0, 0), p(1080, 1920), p(1080, 0)],
               screen: PixelSize(width: 1080, height: 1920)),
    CornerCase(rotation: .clockwise180, corners: [p(1920, 1080), p(0, 1080), p(1920, 0), p(0, 0)],
               screen: PixelSize(width: 1920, height: 1080)),
    CornerCase(rotation: .clockwise270, corners: [p(1080, 0), p(1080, 1920), p(0, 0), p(0, 1920)],
               screen: PixelSize(width: 1080, height: 1920)),
]

@Test(arguments: cornerTable)
func eachRotationMapsThePanelCorners(_ c: CornerCase) throws {
    let transform = try TouchTransform(rawX: rawX, rawY: rawY, scanout: scanout, rotation: c.rotation, device: "test panel")
    #expect(transform.screen == c.screen)
    let raw = [(rawX.lowerBound, rawY.lowerBound), (rawX.upperBound, rawY.lowerBound),
               (rawX.lowerBound, rawY.upperBound), (rawX.upperBound, rawY.upperBound)]
    #expect(raw.map { transform.screenPoint(rawX: $0.0, rawY: $0.1) } == c.corners)
    // The middle stays in the middle (within half a pixel: the raw ranges have no middle value).
    let middle = transform.screenPoint(rawX: 16383, rawY: 2147)
    #expect(abs(middle.x - Double(c.screen.width) / 2) < 0.5)
    #expect(abs(middle.y - Double(c.screen.height) / 2) < 0.5)
}

@Test func rotationMatchesHowThePictureIsTurned() throws {
    // The same convention as Rotation.map: the pixel at the picture's top-left corner lands,
    // once the picture is turned for the panel, where the panel reports the matching touch.
    for rotation in Rotation.allCases {
        let transform = try TouchTransform(rawX: 0...1000, rawY: 0...1000, scanout: scanout, rotation: rotation, device: "t")
        let picture = transform.screen
        let onPanel = rotation.map(PixelRect(x: 0, y: 0, width: 1, height: 1), in: picture)
        // That pixel's center as a raw reading.
        let rawTouchX = Int((Double(onPanel.x) + 0.5) / Double(scanout.width) * 1000)
        let rawTouchY = Int((Double(onPanel.y) + 0.5) / Double(scanout.height) * 1000)
        let seen = transform.screenPoint(rawX: rawTouchX, rawY: rawTouchY)
        #expect(seen.x < 2 && seen.y < 2, "rotation \(rotation.degrees): touch at \(seen)")
    }
}

@Test func readingsOutsideTheRangeAreClampedToTheEdge() throws {
    let transform = try TouchTransform(rawX: rawX, rawY: rawY, scanout: scanout, rotation: .none, device: "t")
    #expect(transform.screenPoint(rawX: -40, rawY: 5000) == p(0, 1080))
}

@Test func anEmptyAxisRangeIsRefusedByName() {
    #expect(throws: TouchTransformError(device: "/dev/input/event3 (Goodix)",
                                        reason: "y axis range 7...7 is empty; cannot map touches")) {
        try TouchTransform(rawX: 0...100, rawY: 7...7, scanout: scanout, rotation: .none, device: "/dev/input/event3 (Goodix)")
    }
    do {
        _ = try TouchTransform(rawX: 5...5, rawY: 0...100, scanout: scanout, rotation: .none, device: "panel")
        Issue.record("an empty x range was accepted")
    } catch {
        #expect(error.description == "touch device panel: x axis range 5...5 is empty; cannot map touches")
    }
}

@Test func aSwipeOnAPortraitScreenIsTheViewersSwipe() throws {
    // Rotation 90: the viewer's left-to-right runs along the panel's raw y axis, top to bottom.
    let transform = try TouchTransform(rawX: rawX, rawY: rawY, scanout: scanout, rotation: .clockwise90, device: "t")
    var recognizer = GestureRecognizer(screen: transform.screen)
    let rawYs = stride(from: 1000, through: 3500, by: 500).map { $0 }
    var gestures: [Gesture] = []
    for (index, y) in rawYs.enumerated() {
        let phase: TouchPhase = index == 0 ? .down : (index == rawYs.count - 1 ? .up : .move)
        let sample = TouchSample(slot: 0, phase: phase, point: transform.screenPoint(rawX: 16000, rawY: y),
                                 time: Double(index) * 0.04)
        gestures += recognizer.handle(sample)
    }
    #expect(gestures == [.swipe(.right)])
}
