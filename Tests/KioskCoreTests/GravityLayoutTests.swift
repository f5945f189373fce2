import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

struct GravityCase: Sendable, CustomStringConvertible {
    let source: PixelSize
    let sar: Rational
    let rotation: Rotation
    let target: PixelSize
    let gravity: VideoGravity
    let crop: PixelRect
    let destination: PixelRect
    var description: String { "\(source) sar \(sar) rot \(rotation.degrees) -> \(target) \(gravity)" }
}

private func size(_ w: Int, _ h: Int) -> PixelSize { PixelSize(width: w, height: h) }
private func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect { PixelRect(x: x, y: y, width: w, height: h) }

let gravityTable: [GravityCase] = [
    // 2.35:1 into 16:10: the brief's example, letterboxed 128 px top and bottom.
    GravityCase(source: size(640, 272), sar: .one, rotation: .none, target: size(1280, 800), gravity: .fit,
                crop: rect(0, 0, 640, 272), destination: rect(0, 128, 1280, 544)),
    // Fill: scale by 800/272; 1280 / (800/272) = 435.2 -> 435 source columns, centered.
    GravityCase(source: size(640, 272), sar: .one, rotation: .none, target: size(1280, 800), gravity: .fill,
                crop: rect(102, 0, 435, 272), destination: rect(0, 0, 1280, 800)),
    GravityCase(source: size(640, 272), sar: .one, rotation: .none, target: size(1280, 800), gravity: .stretch,
                crop: rect(0, 0, 640, 272), destination: rect(0, 0, 1280, 800)),
    // 4:3 into 16:9: pillarbox.
    GravityCase(source: size(640, 480), sar: .one, rotation: .none, target: size(1920, 1080), gravity: .fit,
                crop: rect(0, 0, 640, 480), destination: rect(240, 0, 1440, 1080)),
    GravityCase(source: size(640, 480), sar: .one, rotation: .none, target: size(1920, 1080), gravity: .fill,
                crop: rect(0, 60, 640, 360), destination: rect(0, 0, 1920, 1080)),
    // Same aspect: no bars, no crop.
    GravityCase(source: size(1920, 1080), sar: .one, rotation: .none, target: size(1280, 720), gravity: .fit,
                crop: rect(0, 0, 1920, 1080), destination: rect(0, 0, 1280, 720)),
    GravityCase(source: size(1920, 1080), sar: .one, rotation: .none, target: size(1280, 720), gravity: .fill,
                crop: rect(0, 0, 1920, 1080), destination: rect(0, 0, 1280, 720)),
    // Anamorphic DVD: 720x576 with SAR 64/45 shows as 1024x576 (16:9).
    GravityCase(source: size(720, 576), sar: Rational(64, 45), rotation: .none, target: size(1920, 1080), gravity: .fit,
                crop: rect(0, 0, 720, 576), destination: rect(0, 0, 1920, 1080)),
    GravityCase(source: size(720, 576), sar: Rational(64, 45), rotation: .none, target: size(1024, 768), gravity: .fit,
                crop: rect(0, 0, 720, 576), destination: rect(0, 96, 1024, 576)),
    // Fill of the same: 4:3 screen shows the middle 540 of 720 coded columns.
    GravityCase(source: size(720, 576), sar: Rational(64, 45), rotation: .none, target: size(1024, 768), gravity: .fill,
                crop: rect(90, 0, 540, 576), destination: rect(0, 0, 1024, 768)),
    // SAR 2:1 (320x240 coded, shows 640x240) into a square screen.
    GravityCase(source: size(320, 240), sar: Rational(2, 1), rotation: .none, target: size(600, 600), gravity: .fit,
                crop: rect(0, 0, 320, 240), destination: rect(0, 187, 600, 225)),
    // Unknown SAR (0/1) counts as square.
    GravityCase(source: size(640, 480), sar: Rational(0, 1), rotation: .none, target: size(640, 480), gravity: .fit,
                crop: rect(0, 0, 640, 480), destination: rect(0, 0, 640, 480)),
    // Phone video tagged 90: 640x360 coded shows 360x640 portrait, pillarboxed on a landscape screen.
    GravityCase(source: size(640, 360), sar: .one, rotation: .clockwise90, target: size(1280, 720), gravity: .fit,
                crop: rect(0, 0, 640, 360), destination: rect(437, 0, 405, 720)),
    // Fill of the same: full width, the middle 203 of 640 shown rows are coded columns... rows of the
    // portrait picture are coded columns, so the crop is along x in coded pixels.
    GravityCase(source: size(640, 360), sar: .one, rotation: .clockwise90, target: size(1280, 720), gravity: .fill,
                crop: rect(218, 0, 203, 360), destination: rect(0, 0, 1280, 720)),
    GravityCase(source: size(640, 360), sar: .one, rotation: .clockwise270, target: size(360, 640), gravity: .fit,
                crop: rect(0, 0, 640, 360), destination: rect(0, 0, 360, 640)),
    GravityCase(source: size(640, 360), sar: .one, rotation: .clockwise180, target: size(640, 480), gravity: .fit,
                crop: rect(0, 0, 640, 360), destination: rect(0, 60, 640, 360)),
    // Odd remainders: the extra pixel goes right/bottom.
    GravityCase(source: size(100, 100), sar: .one, rotation: .none, target: size(301, 200), gravity: .fit,
                crop: rect(0, 0, 100, 100), destination: rect(50, 0, 200, 200)),
]

@Test("gravity layout table", arguments: gravityTable)
func gravityLayout(_ c: GravityCase) {
    let layout = GravityLayout(source: c.source, sampleAspect: c.sar, rotation: c.rotation,
                               target: c.target, gravity: c.gravity)
    #expect(layout.sourceCrop == c.crop)
    #expect(layout.destination == c.destination)
    #expect(layout.rotation == c.rotation)
}

@Test("fit never leaves the target and keeps the aspect within a pixel",
      arguments: [size(1920, 1080), size(1024, 768), size(800, 1280), size(333, 777)])
func fitStaysInside(target: PixelSize) {
    for source in [size(640, 272), size(640, 480), size(1, 1000), size(1000, 1), size(1920, 1080)] {
        for rotation in Rotation.allCases {
            let layout = GravityLayout(source: source, rotation: rotation, target: target, gravity: .fit)
            let d = layout.destination
            #expect(d.x >= 0 && d.y >= 0 && d.maxX <= target.width && d.maxY <= target.height)
            #expect(d.width == target.width || d.height == target.height)
            let shown = rotation.swapsAxes ? source.transposed : source
            let expected = Double(shown.width) / Double(shown.height)
            let tolerance = expected / Double(Swift.min(d.width, d.height)) * 1.01 + 1 / Double(d.height)
            #expect(abs(Double(d.width) / Double(d.height) - expected) <= Swift.max(tolerance, 0.01) || d.width == 1 || d.height == 1)
        }
    }
}

@Test("fill crops inside the source and centers the crop", arguments: Rotation.allCases)
func fillCropInside(rotation: Rotation) {
    let source = size(640, 272)
    let layout = GravityLayout(source: source, rotation: rotation, target: size(1024, 768), gravity: .fill)
    let c = layout.sourceCrop
    #expect(c.x >= 0 && c.y >= 0 && c.maxX <= source.width && c.maxY <= source.height)
    #expect(abs(c.x - (source.width - c.maxX)) <= 1)
    #expect(abs(c.y - (source.height - c.maxY)) <= 1)
    #expect(layout.destination == PixelRect(size: size(1024, 768)))
}

@Test func gravityNames() {
    #expect(VideoGravity(name: "resizeAspect") == .fit)
    #expect(VideoGravity(name: "resizeAspectFill") == .fill)
    #expect(VideoGravity(name: "resize") == .stretch)
    #expect(VideoGravity(name: "FILL") == .fill)
    #expect(VideoGravity(name: "zoom") == nil)
    #expect(VideoGravity.resizeAspectFill == .fill)
}

@Test func rotationMapsRectsBothWays() {
    let image = size(640, 360)
    let marker = rect(0, 0, 10, 20) // top-left corner
    #expect(Rotation.clockwise90.map(marker, in: image) == rect(340, 0, 20, 10)) // top-right
    #expect(Rotation.clockwise180.map(marker, in: image) == rect(630, 340, 10, 20)) // bottom-right
    #expect(Rotation.clockwise270.map(marker, in: image) == rect(0, 630, 20, 10)) // bottom-left
    for r in Rotation.allCases {
        let there = r.map(marker, in: image)
        #expect(r.inverse.map(there, in: r.swapsAxes ? image.transposed : image) == marker)
    }
    #expect(Rotation(degrees: -90) == .clockwise270)
    #expect(Rotation(degrees: 450) == .clockwise90)
    #expect(Rotation(degrees: 45) == nil)
}

@Test func displaySpecsParse() {
    #expect(DisplaySpec(parsing: "auto") == .auto)
    #expect(DisplaySpec(parsing: "drm") == .drm(card: nil, connector: nil, mode: nil))
    #expect(DisplaySpec(parsing: "drm:card1") == .drm(card: "/dev/dri/card1", connector: nil, mode: nil))
    #expect(DisplaySpec(parsing: "drm:/dev/dri/card0:HDMI-A-1:1920x1080@60")
            == .drm(card: "/dev/dri/card0", connector: "HDMI-A-1", mode: ModeRequest(size: size(1920, 1080), refreshRate: 60)))
    #expect(DisplaySpec(parsing: "drm::Virtual-1") == .drm(card: nil, connector: "Virtual-1", mode: nil))
    #expect(DisplaySpec(parsing: "headless:640x360") == .headless(size(640, 360), refreshRate: 60))
    #expect(DisplaySpec(parsing: "headless:640x360@30") == .headless(size(640, 360), refreshRate: 30))
    #expect(DisplaySpec(parsing: "headless:640x360@50:vblank") == .headless(size(640, 360), refreshRate: 50, pacing: .vblank))
    // A simulated YUV/ARGB plane (benchmarks of the plane path), with or without a pacing.
    #expect(DisplaySpec(parsing: "headless:640x360:planes") == .headless(size(640, 360), refreshRate: 60, planes: true))
    #expect(DisplaySpec(parsing: "headless:640x360@50:vblank:planes")
            == .headless(size(640, 360), refreshRate: 50, pacing: .vblank, planes: true))
    #expect(DisplaySpec(parsing: "headless:640x360:planes:vblank")
            == .headless(size(640, 360), refreshRate: 60, pacing: .vblank, planes: true))
    #expect(DisplaySpec(parsing: "headless:640x360:planes")?.description == "headless:640x360@60:planes")
    for wrong in ["headless:640x360:planes:planes", "headless:640x360:vblank:interval", "headless:640x360:plane",
                  "headless:640x360:vblank:planes:x"] {
        #expect(DisplaySpec(parsing: wrong) == nil, "\(wrong)")
    }
    #expect(DisplaySpec(parsing: "headless:640x360@50:vblank")?.description == "headless:640x360@50:vblank")
    #expect(DisplaySpec(parsing: "headless:640x360:interval")?.description == "headless:640x360@60")
    #expect(DisplaySpec(parsing: "headless:640x360@60:grid") == nil)
    #expect(DisplaySpec(parsing: "headless:640x360@60:vblank:x") == nil)
    for bad in ["", "x11", "headless", "headless:big", "drm:card0:HDMI-A-1:huge", "drm:a:b:1x1:extra", "headless:10x10@0"] {
        #expect(DisplaySpec(parsing: bad) == nil, "\(bad)")
    }
}
