import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The layers' plane's pure parts: which plane carries the layers over the video plane, drawing
/// into premultiplied ARGB, and laying that over a picture as a display composes it.
struct LayerPlaneTests {
    static let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888, .argb8888])
    static func overlay(_ id: UInt32, _ formats: [FourCC] = [.xrgb8888, .argb8888, .nv12], crtcs: UInt32 = 1) -> DisplayPlaneInfo {
        DisplayPlaneInfo(id: id, type: .overlay, possibleCRTCs: crtcs, formats: formats)
    }

    static func choose(video: UInt32, _ planes: [DisplayPlaneInfo]) -> LayerPlaneAnswer {
        PlaneSelection.chooseLayerPlane(videoPlaneID: video, primaryPlaneID: primary.id, crtcIndex: 0, planes: [primary] + planes)
    }

    @Test func theFirstARGBOverlayAfterTheVideoPlaneCarriesTheLayers() {
        // vkms with enable_overlay: 8 overlays after the primary; the video takes the first.
        #expect(Self.choose(video: 40, [Self.overlay(40), Self.overlay(46), Self.overlay(43)]) == .ready(planeID: 43))
        let cursor = DisplayPlaneInfo(id: 50, type: .cursor, possibleCRTCs: 1, formats: [.argb8888])
        #expect(Self.choose(video: 40, [Self.overlay(40), cursor, Self.overlay(44, crtcs: 2), Self.overlay(45, [.nv12])])
                == .unavailable(reason: "no overlay plane beside the video plane takes AR24"),
                "not the cursor, not a plane of another CRTC, not one without ARGB")
    }

    @Test func aDisplayWithOnePlaneOrOnlyPlanesBelowKeepsTheCPUPath() {
        #expect(Self.choose(video: 40, [Self.overlay(40)]) == .unavailable(reason: "no overlay plane beside the video plane 40"))
        #expect(Self.choose(video: 40, [Self.overlay(36), Self.overlay(40)])
                == .unavailable(reason: "the AR24 planes (36) stack below the video plane 40"))
    }

    static func buffer(_ size: PixelSize, _ format: PixelFormat, fill: UInt32) -> (PixelBuffer, UnsafeMutableRawPointer) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: size.width * size.height * 4, alignment: 16)
        let buffer = PixelBuffer(base: memory, size: size, stride: size.width * 4, format: format, index: 0)
        buffer.fill(PixelRect(size: size), color: fill)
        return (buffer, memory)
    }

    @Test func drawingIntoARGBKeepsCoverageAndPremultipliedColour() {
        let (layer, memory) = Self.buffer(PixelSize(width: 4, height: 1), .argb8888, fill: 0)
        defer { memory.deallocate() }
        layer.blendFill(PixelRect(x: 0, y: 0, width: 1, height: 1), color: 0xFF_0000)                  // opaque red
        layer.blendFill(PixelRect(x: 1, y: 0, width: 1, height: 1), color: 0, opacity: 128)           // the scrim
        layer.blendFill(PixelRect(x: 2, y: 0, width: 1, height: 1), color: 0xFF_FFFF, opacity: 51)    // faint white
        layer.blendFill(PixelRect(x: 2, y: 0, width: 1, height: 1), color: 0xFF_FFFF, opacity: 51)    // twice
        #expect(layer.pixel(x: 0, y: 0) == 0xFFFF_0000)
        #expect(layer.pixel(x: 1, y: 0) == 0x8000_0000, "half-covered black: alpha 128, no colour")
        // 51 then 51 over it: alpha 51 + 51·204/255 = 92 (rounded); colour premultiplied, the same.
        #expect(layer.pixel(x: 2, y: 0) == 0x5C5C_5C5C)
        #expect(layer.pixel(x: 3, y: 0) == 0, "untouched: transparent")

        // An XRGB picture keeps its X byte 0 as before.
        let (picture, pictureMemory) = Self.buffer(PixelSize(width: 1, height: 1), .xrgb8888, fill: 0x20_4060)
        defer { pictureMemory.deallocate() }
        picture.blendFill(PixelRect(x: 0, y: 0, width: 1, height: 1), color: 0xFF_FFFF, opacity: 51)
        #expect(picture.pixel(x: 0, y: 0) >> 24 == 0)
    }

    @Test func compositingMatchesDrawingStraightIntoThePicture() {
        // What the CPU path draws into the picture == the picture with the layers' plane laid
        // over it (each channel within 1 of 255 for the two roundings).
        let size = PixelSize(width: 3, height: 1)
        let (direct, a) = Self.buffer(size, .xrgb8888, fill: 0x30_80C0)
        let (picture, b) = Self.buffer(size, .xrgb8888, fill: 0x30_80C0)
        let (layer, c) = Self.buffer(size, .argb8888, fill: 0)
        defer { a.deallocate(); b.deallocate(); c.deallocate() }
        for target in [direct, layer] {
            target.blendFill(PixelRect(x: 0, y: 0, width: 1, height: 1), color: 0xFF_0000)
            target.blendFill(PixelRect(x: 1, y: 0, width: 1, height: 1), color: 0x00_FF00, opacity: 100)
            target.blendFill(PixelRect(x: 1, y: 0, width: 1, height: 1), color: 0, opacity: 128)
        }
        picture.composite(layer)
        for x in 0..<3 {
            let one = direct.pixel(x: x, y: 0), other = picture.pixel(x: x, y: 0)
            for shift: UInt32 in [0, 8, 16] {
                let difference = abs(Int((one >> shift) & 0xFF) - Int((other >> shift) & 0xFF))
                #expect(difference <= 1, "x \(x): \(String(one, radix: 16)) vs \(String(other, radix: 16))")
            }
        }
        #expect(picture.pixel(x: 2, y: 0) == 0x30_80C0, "transparent: the picture as it was")
    }
}
