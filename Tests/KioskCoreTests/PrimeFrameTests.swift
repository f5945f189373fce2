import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let size720 = PixelSize(width: 1280, height: 720)

/// NV12 in one dma-buf as VA-API exports it: two layers (R8 + GR88), one object.
private func separateNV12(pitch: Int = 1280, objectSize: Int = 1280 * 720 * 3 / 2, modifier: UInt64 = FormatModifier.linear) -> PrimeFrameDescriptor {
    PrimeFrameDescriptor(size: size720, objects: [.init(fd: 7, size: objectSize, modifier: modifier)],
                         layers: [.init(format: .r8, planes: [.init(object: 0, offset: 0, pitch: pitch)]),
                                  .init(format: .gr88, planes: [.init(object: 0, offset: pitch * 720, pitch: pitch)])])
}

@Test func primeFourCCsAreDRMs() {
    // drm_fourcc.h: DRM_FORMAT_P010 fourcc_code('P','0','1','0'), R8 ('R','8',' ',' '), GR88, R16, GR1616 ('G','R','3','2').
    #expect(FourCC.p010.rawValue == 0x3031_3050)
    #expect(FourCC.r8.rawValue == 0x2020_3852)
    #expect(FourCC.gr88.rawValue == 0x3838_5247)
    #expect(FourCC.r16.rawValue == 0x2036_3152)
    #expect(FourCC.gr1616.rawValue == 0x3233_5247)
}

@Test func separateLayersJoinIntoOneFramebuffer() throws {
    let plan = try separateNV12().framebufferPlan()
    #expect(plan.format == .nv12)
    #expect(plan.planes.map(\.offset) == [0, 1280 * 720])
    #expect(plan.planes.map(\.pitch) == [1280, 1280])
    #expect(plan.planes.map(\.object) == [0, 0])
    #expect(plan.usesModifiers)   // linear is a modifier said

    var p010 = separateNV12(pitch: 2560, objectSize: 2560 * 720 * 3 / 2)
    p010.layers[0].format = .r16
    p010.layers[1].format = .gr1616
    #expect(try p010.framebufferPlan().format == .p010)

    var rg = separateNV12()
    rg.layers[1].format = .rg88
    #expect(try rg.framebufferPlan().format == .nv12)
}

@Test func oneLayerKeepsItsFormatAndObjects() throws {
    // Two objects (a Y and a CbCr buffer), one NV12 layer, no modifier said.
    let frame = PrimeFrameDescriptor(
        size: size720,
        objects: [.init(fd: 3, size: 1280 * 720, modifier: FormatModifier.invalid), .init(fd: 4, size: 1280 * 360, modifier: FormatModifier.invalid)],
        layers: [.init(format: .nv12, planes: [.init(object: 0, offset: 0, pitch: 1280), .init(object: 1, offset: 0, pitch: 1280)])])
    let plan = try frame.framebufferPlan()
    #expect(plan.format == .nv12)
    #expect(plan.planes.map(\.object) == [0, 1])
    #expect(!plan.usesModifiers)
}

@Test func badDescriptorsSayWhy() {
    #expect(throws: PrimeFrameError.empty) {
        try PrimeFrameDescriptor(size: size720, objects: [], layers: []).framebufferPlan()
    }
    var unknown = separateNV12()
    unknown.layers[1].format = .r8
    #expect(throws: PrimeFrameError.unknownLayerCombination([.r8, .r8])) { try unknown.framebufferPlan() }

    var badObject = separateNV12()
    badObject.layers[1].planes[0].object = 2
    #expect(throws: PrimeFrameError.badObjectIndex(plane: 1, object: 2, objects: 1)) { try badObject.framebufferPlan() }

    // The chroma rows run past the end of a buffer too small for them.
    #expect(throws: PrimeFrameError.outOfBounds(plane: 1, needs: 1280 * 720 * 3 / 2, objectSize: 1280 * 720)) {
        try separateNV12(objectSize: 1280 * 720).framebufferPlan()
    }
    #expect(throws: PrimeFrameError.pitchTooSmall(plane: 0, pitch: 1000, needs: 1280)) {
        try separateNV12(pitch: 1000).framebufferPlan()
    }
    #expect(throws: PrimeFrameError.badSize(PixelSize(width: 0, height: 720))) {
        var frame = separateNV12()
        frame.size = PixelSize(width: 0, height: 720)
        return try frame.framebufferPlan()
    }
    let five = PrimeFrameDescriptor(size: size720, objects: [.init(fd: 1, size: 0, modifier: 0)],
                                    layers: [.init(format: .yuv420, planes: Array(repeating: .init(object: 0, offset: 0, pitch: 1280), count: 5))])
    #expect(throws: PrimeFrameError.tooManyPlanes(5)) { try five.framebufferPlan() }
    #expect(PrimeFrameError.outOfBounds(plane: 1, needs: 10, objectSize: 5).description == "plane 1 needs 10 bytes of an object of 5")
}

@Test func tiledObjectsAreTheDriversBusiness() throws {
    // A tiled modifier (Broadcom SAND128 here): its layout is not rows of `pitch`, so no bound check.
    let sand128: UInt64 = 0x0700_0000_0000_0004
    let plan = try separateNV12(pitch: 128, objectSize: 1280 * 720, modifier: sand128).framebufferPlan()
    #expect(plan.planes.allSatisfy { $0.modifier == sand128 })
}

@Test func importsOfOneBufferShareAHandleAndCloseWithTheLast() {
    var ledger = GEMHandleLedger()
    ledger.noteImported(5)
    ledger.noteImported(5)   // the same dma-buf again: the kernel gave the same handle
    ledger.noteImported(6)
    #expect(ledger.openImports == 3 && ledger.importedHandles == 2)
    let closes1 = ledger.releaseImport(5)
    #expect(!closes1)
    let closes2 = ledger.releaseImport(5)
    #expect(closes2)
    let closes3 = ledger.releaseImport(6)
    #expect(closes3)
    #expect(ledger.openImports == 0)
    let closes4 = ledger.releaseImport(6)   // released twice, or never imported: never closed
    #expect(!closes4)
    let closes5 = ledger.releaseImport(9)
    #expect(!closes5)
}

@Test func ownBuffersImportedBackAreClosedOnceByWhicheverLetsGoLast() {
    var ledger = GEMHandleLedger()
    ledger.noteCreated(3)
    ledger.noteImported(3)                 // a dma-buf of kiosk's own buffer came back
    let closes6 = ledger.releaseImport(3)      // the buffer still uses it
    #expect(!closes6)
    #expect(ledger.isCreated(3))
    let closes7 = ledger.destroyCreated(3)      // now the buffer closes it
    #expect(closes7)

    ledger.noteCreated(4)
    ledger.noteImported(4)
    let closes8 = ledger.destroyCreated(4)     // freed while imported: the import closes it
    #expect(!closes8)
    let closes9 = ledger.releaseImport(4)
    #expect(closes9)
    #expect(ledger == GEMHandleLedger())
}

@Test func colorBarsAreBT709LimitedRange() {
    // 75% white: Y 180; black: Y 16; chroma 128 for both; 75% red: BT.709 Y 51, Cb 109, Cr 212.
    #expect(ColorBarPattern.yuv(0) == (180, 128, 128))
    #expect(ColorBarPattern.yuv(7) == (16, 128, 128))
    #expect(ColorBarPattern.yuv(5) == (51, 109, 212))
    #expect(ColorBarPattern.yuv(7, bits: 10) == (64, 512, 512))

    let bars = ColorBarPattern(width: 64)
    #expect((0..<64).map { bars.colorIndex(atColumn: $0) } == (0..<8).flatMap { Array(repeating: $0, count: 8) })
    #expect(ColorBarPattern(width: 64, shift: 3).colorIndex(atColumn: 0) == 3)
    #expect(ColorBarPattern(width: 64, shift: 3).colorIndex(atColumn: 63) == 2)
    // A width that does not divide by 16: bars stay even, the last takes the rest.
    #expect(ColorBarPattern(width: 100).colorIndex(atColumn: 99) == 7)
    #expect(ColorBarPattern(width: 100).colorIndex(atColumn: 12) == 1)

    let luma = bars.row(format: .nv12, plane: 0)!
    #expect(luma.count == 64 && luma[0] == 180 && luma[63] == 16)
    let chroma = bars.row(format: .nv12, plane: 1)!
    #expect(chroma.count == 64 && Array(chroma[40...41]) == [109, 212])   // pair 20, column 40: red
    let p010 = bars.row(format: .p010, plane: 0)!
    #expect(p010.count == 128)
    #expect(UInt16(p010[0]) | UInt16(p010[1]) << 8 == UInt16(720) << 6)   // 75% white at 10 bits: 64 + 876 * 0.75
    #expect(bars.row(format: .yuv420, plane: 2)!.count == 32)
    #expect(bars.row(format: .xrgb8888, plane: 0) == nil)
}

@Test func primeFramesGoOnAnOverlayNeverThePrimary() {
    let layout = GravityLayout(source: size720, target: size720, gravity: .fit)
    let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888, .nv12, .p010], currentCRTCID: 40)
    let overlay = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.xrgb8888, .nv12])
    // amdgpu's shape: the primary takes NV12 and P010, the overlay only NV12.
    let nv12 = PlaneSelection.choosePrimeScanout(format: .nv12, modifier: FormatModifier.linear, layout: layout, primaryPlaneID: 31, crtcIndex: 0, crtcID: 40,
                                                 planes: [primary, overlay])
    guard case .ready(let scanout) = nv12 else { Issue.record("\(nv12)"); return }
    #expect(scanout.planeID == 33 && scanout.format == .nv12 && scanout.destination == PixelRect(size: size720))
    let p010 = PlaneSelection.choosePrimeScanout(format: .p010, modifier: FormatModifier.linear, layout: layout, primaryPlaneID: 31, crtcIndex: 0, crtcID: 40,
                                                 planes: [primary, overlay])
    #expect(p010 == .refused(reason: "only the primary plane takes P010; kiosk keeps it for the XRGB picture"))
    let none = PlaneSelection.choosePrimeScanout(format: .p010, modifier: FormatModifier.linear, layout: layout, primaryPlaneID: 31, crtcIndex: 0, crtcID: 40,
                                                 planes: [overlay])
    #expect(none == .refused(reason: "no plane on CRTC #0 takes P010"))
}

@Test func mixedModifiersAreRefused() {
    let frame = PrimeFrameDescriptor(
        size: size720,
        objects: [.init(fd: 3, size: 1280 * 720, modifier: FormatModifier.linear), .init(fd: 4, size: 1280 * 360, modifier: FormatModifier.invalid)],
        layers: [.init(format: .nv12, planes: [.init(object: 0, offset: 0, pitch: 1280), .init(object: 1, offset: 0, pitch: 1280)])])
    #expect(throws: PrimeFrameError.mixedModifiers) { try frame.framebufferPlan() }
}

/// The other reasons the zero-copy path gives when no plane takes another device's frame (#33:
/// "every fallback reason tested"): the CRTC's planes all busy on another CRTC, a turn no plane
/// makes, a scale on a plane that cannot scale.
@Test func primeFramesNameEachReasonNoPlaneTakesThem() {
    let fit = GravityLayout(source: size720, target: size720, gravity: .fit)
    func answer(_ layout: GravityLayout, _ planes: [DisplayPlaneInfo], rotation: Rotation = .none) -> DirectScanoutAnswer {
        PlaneSelection.choosePrimeScanout(format: .nv12, modifier: FormatModifier.linear, layout: layout, displayRotation: rotation,
                                          primaryPlaneID: 31, crtcIndex: 0, crtcID: 40, planes: planes)
    }
    let busy = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.nv12], currentCRTCID: 41)
    #expect(answer(fit, [busy]) == .refused(reason: "no free plane on CRTC #0"))
    let still = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.nv12], scaling: .yes)
    #expect(answer(GravityLayout(source: size720, rotation: .clockwise90, target: size720, gravity: .fit), [still])
            == .refused(reason: "no plane taking NV12 can rotate 90°"))
    #expect(answer(fit, [still], rotation: .clockwise180) == .refused(reason: "no plane taking NV12 can rotate 180°"), "the screen's turn")
    let fixed = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.nv12], scaling: .no)
    let smaller = GravityLayout(source: PixelSize(width: 640, height: 360), target: size720, gravity: .fit)
    #expect(answer(smaller, [fixed]) == .refused(reason: "no plane taking NV12 can scale 640x360 to 1280x720"))
    guard case .ready(let scanout) = answer(fit, [fixed]) else { Issue.record("a picture of the screen's size needs no scaling"); return }
    #expect(scanout.planeID == 33)
}
