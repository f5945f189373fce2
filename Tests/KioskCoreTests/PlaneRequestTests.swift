import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// The pure part of the direct video path: the property values of a plane request and where a
/// YUV frame's planes go in a dumb buffer.
@Suite struct PlaneRequestTests {
    static let screen = PixelSize(width: 1280, height: 1024)
    static let planes = [PlaneFixtures.primary, PlaneFixtures.overlayScaler, PlaneFixtures.overlayRotating]

    static func scanout(_ source: PixelSize, gravity: VideoGravity, format: VideoFrameFormat = .yuv420p,
                        target: PixelSize = screen, videoRotation: Rotation = .none,
                        displayRotation: Rotation = .none, planes: [DisplayPlaneInfo] = planes) throws -> PlaneScanout {
        let layout = GravityLayout(source: source, rotation: videoRotation, target: target, gravity: gravity)
        let answer = PlaneSelection.chooseDirectScanout(format: format, layout: layout, displayRotation: displayRotation,
                                                        primaryPlaneID: 31, crtcIndex: 0, crtcID: 40, planes: planes)
        guard case .ready(let scanout) = answer else { throw PlaneTestFailure(answer: answer) }
        return scanout
    }

    struct PlaneTestFailure: Error { let answer: DirectScanoutAnswer }

    @Test func fitWithBarsGivesFixedPointSourceAndCRTCRectangle() throws {
        // 16:9 on 5:4: 1280x720 at y 152; the whole frame as source, in 16.16 fixed point.
        let values = PlanePropertyValues(try Self.scanout(PixelSize(width: 1920, height: 1080), gravity: .fit),
                                         planeHasRotationProperty: false)
        #expect(values.srcX == 0 && values.srcY == 0)
        #expect(values.srcW == 1920 * 65536 && values.srcH == 1080 * 65536)
        #expect([values.crtcX, values.crtcY, values.crtcW, values.crtcH] == [0, 152, 1280, 720])
        #expect(values.rotation == nil, "no rotation property, none wanted: left out")
        #expect(values.named.map(\.0) == ["SRC_X", "SRC_Y", "SRC_W", "SRC_H", "CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H"])
    }

    @Test func oddSizedFillCropIsEvenAndInsideTheFramebuffer() throws {
        // 321x241 filled onto 1280x1024: a centered crop whose edges fall on odd pixels; 4:2:0
        // planes need them even, and the framebuffer is the frame rounded down to 320x240.
        let frame = PixelSize(width: 321, height: 241)
        let layout = GravityLayout(source: frame, target: Self.screen, gravity: .fill)
        let scanout = try Self.scanout(frame, gravity: .fill)
        let framebuffer = YUVBufferLayout.framebufferSize(for: frame)
        #expect(framebuffer == PixelSize(width: 320, height: 240))
        let src = scanout.source
        #expect(src.x % 2 == 0 && src.y % 2 == 0 && src.width % 2 == 0 && src.height % 2 == 0, "\(src)")
        #expect(src.maxX <= framebuffer.width && src.maxY <= framebuffer.height)
        // Within one pixel of the CPU path's crop on each side, never outside it.
        let crop = layout.sourceCrop
        #expect(src.x >= crop.x && src.x - crop.x <= 1 && crop.maxX >= src.maxX && crop.maxX - src.maxX <= 1)
        #expect(src.y >= crop.y && src.y - crop.y <= 1 && crop.maxY >= src.maxY && crop.maxY - src.maxY <= 1)
        #expect(scanout.destination == PixelRect(size: Self.screen))
        let values = PlanePropertyValues(scanout, planeHasRotationProperty: true)
        #expect(values.srcX == UInt64(src.x) << 16 && values.srcW == UInt64(src.width) << 16)
        #expect(values.rotation == PlaneRotationSupport.rotate0, "the property exists: set to rotate-0, clearing leftovers")
    }

    @Test func rotatedVideoSetsTheCounterClockwiseBit() throws {
        // A phone video tagged 90° clockwise: only the rotating overlay (37) can show it.
        let scanout = try Self.scanout(PixelSize(width: 720, height: 1280), gravity: .fit, format: .nv12, target: PixelSize(width: 1920, height: 1080),
                                       videoRotation: .clockwise90)
        #expect(scanout.planeID == 37)
        let values = PlanePropertyValues(scanout, planeHasRotationProperty: true)
        #expect(values.rotation == 1 << 3, "DRM_MODE_ROTATE_270 turns the picture 90° clockwise")
        #expect(values.srcW == 720 << 16 && values.srcH == 1280 << 16, "the source stays in the frame's own coordinates")
        #expect(scanout.destination == PixelRect(x: 0, y: 0, width: 1920, height: 1080), "upright it is 16:9 like the screen")
        #expect([values.crtcW, values.crtcH] == [1920, 1080])
    }

    @Test func portraitDisplayMapsOntoTheCRTC() throws {
        // The primary plane rotates the screen: the layout is upright (1024x1280) and the
        // display's turn maps the destination and adds to the plane's rotation.
        let scanout = try Self.scanout(PixelSize(width: 640, height: 360), gravity: .fit, format: .nv12, target: Self.screen.transposed,
                                       displayRotation: .clockwise90)
        #expect(scanout.planeID == 37 && scanout.rotation == .clockwise90)
        #expect(scanout.destination == PixelRect(x: 352, y: 0, width: 576, height: 1024))
    }

    @Test func negativeCRTCOffsetsAreSignedBitPatterns() {
        let scanout = PlaneScanout(planeID: 33, planeType: .overlay, format: .nv12, source: PixelRect(x: 0, y: 0, width: 64, height: 64),
                                   destination: PixelRect(x: -8, y: -2, width: 64, height: 64), rotation: .none, needsTestCommit: false)
        let values = PlanePropertyValues(scanout, planeHasRotationProperty: false)
        #expect(Int64(bitPattern: values.crtcX) == -8 && Int64(bitPattern: values.crtcY) == -2)
    }

    @Test func onlyThePrimaryTakingYUVKeepsTheCPUPath() {
        let layout = GravityLayout(source: PixelSize(width: 640, height: 480), target: screen1080, gravity: .fill)
        let answer = PlaneSelection.chooseDirectScanout(format: .nv12, layout: layout, displayRotation: .none, primaryPlaneID: 32,
                                                        crtcIndex: 0, crtcID: 40, planes: [PlaneFixtures.primaryNV12])
        #expect(answer == .unavailable(reason: "only the primary plane takes NV12; kiosk keeps it for the XRGB picture"))
        let none = PlaneSelection.chooseDirectScanout(format: .yuv420p, layout: layout, displayRotation: .none, primaryPlaneID: 31,
                                                      crtcIndex: 0, crtcID: 40, planes: [PlaneFixtures.primary])
        #expect(none.reason?.contains("takes YU12") == true, "\(none)")
    }

    @Test func bufferLayoutsOfNV12AndYU12() throws {
        let size = PixelSize(width: 320, height: 240)
        let nv12 = try #require(YUVBufferLayout(format: .nv12, size: size, pitch: 384))
        #expect(nv12.planes.map(\.offset) == [0, 384 * 240])
        #expect(nv12.planes.map(\.pitch) == [384, 384])
        #expect(nv12.planes.map(\.rowBytes) == [320, 320] && nv12.planes.map(\.rows) == [240, 120])
        #expect(nv12.byteCount == 384 * 360 && nv12.fourCC == .nv12)
        let yu12 = try #require(YUVBufferLayout(format: .yuv420p, size: size, pitch: 384))
        #expect(yu12.planes.map(\.offset) == [0, 384 * 240, 384 * 240 + 192 * 120])
        #expect(yu12.planes.map(\.pitch) == [384, 192, 192])
        #expect(yu12.planes.map(\.rowBytes) == [320, 160, 160])
        #expect(yu12.byteCount == 384 * YUVBufferLayout.dumbBufferRows(for: size) && yu12.fourCC == .yuv420)
        #expect(YUVBufferLayout(format: .nv12, size: size, pitch: 318) == nil, "pitch shorter than a row")
        #expect(YUVBufferLayout(format: .yuv420p, size: size, pitch: 385) == nil, "odd pitch: chroma rows are half of it")
        #expect(YUVBufferLayout(format: .nv12, size: PixelSize(width: 321, height: 240), pitch: 384) == nil)
        #expect(YUVBufferLayout(format: .xrgb8888, size: size, pitch: 1280) == nil)
    }

    @Test(arguments: [VideoFrameFormat.yuv420p, .nv12])
    func copyMovesEveryRowOfEveryPlane(format: VideoFrameFormat) throws {
        // A 7x5 frame (odd: the buffer keeps 6x4) with padded strides, each byte its own value.
        let frameSize = PixelSize(width: 7, height: 5)
        let strides = format == .nv12 ? [16, 16] : [16, 8, 8]
        let rows = format == .nv12 ? [5, 3] : [5, 3, 3]
        let sources = zip(strides, rows).enumerated().map { plane, pair in
            (0..<(pair.0 * pair.1)).map { UInt8(truncatingIfNeeded: plane * 100 + $0) }
        }
        let layout = try #require(YUVBufferLayout(format: format, size: YUVBufferLayout.framebufferSize(for: frameSize), pitch: 10))
        var buffer = [UInt8](repeating: 0xEE, count: layout.byteCount)
        try sources.withUnsafeBufferPointers { pointers in
            let view = try #require(YUVFrameView(format: format, size: frameSize, planes: zip(pointers, strides).map {
                YUVFrameView.Plane(base: UnsafeRawPointer($0.0.baseAddress!), stride: $0.1)
            }))
            buffer.withUnsafeMutableBytes { layout.copy(view, into: $0.baseAddress!) }
        }
        for (index, plane) in layout.planes.enumerated() {
            for row in 0..<plane.rows {
                for column in 0..<plane.pitch {
                    let got = buffer[plane.offset + row * plane.pitch + column]
                    let want = column < plane.rowBytes ? sources[index][row * strides[index] + column] : 0xEE
                    #expect(got == want, "plane \(index) row \(row) column \(column)")
                }
            }
        }
        #expect(layout.planes.last!.offset + layout.planes.last!.rows * layout.planes.last!.pitch <= layout.byteCount)
    }
}

extension Array where Element == [UInt8] {
    /// Runs `body` with a pointer to each array's storage (all valid at once).
    func withUnsafeBufferPointers<R>(_ body: ([UnsafeBufferPointer<UInt8>]) throws -> R) rethrows -> R {
        func nest(_ index: Int, _ collected: [UnsafeBufferPointer<UInt8>]) throws -> R {
            if index == count { return try body(collected) }
            return try self[index].withUnsafeBufferPointer { try nest(index + 1, collected + [$0]) }
        }
        return try nest(0, [])
    }
}

@Test func colorEncodingNamesAreTheKernels() {
    // drm_color_mgmt.c's color_encoding_name[] and color_range_name[].
    #expect(YUVMatrix.allCases.map(\.drmEncodingName) == ["ITU-R BT.601 YCbCr", "ITU-R BT.709 YCbCr", "ITU-R BT.2020 YCbCr"])
    #expect(YUVMatrix.drmLimitedRangeName == "YCbCr limited range")
}
