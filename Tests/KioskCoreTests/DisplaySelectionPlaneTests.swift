import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

@Test func fourCCPacksLittleEndian() throws {
    #expect(FourCC.xrgb8888.rawValue == 0x3432_5258)          // drm_fourcc.h DRM_FORMAT_XRGB8888
    #expect(FourCC.nv12.rawValue == 0x3231_564E)
    #expect(FourCC(rawValue: 0x3432_5258).description == "XR24")
    #expect(FourCC(rawValue: 0x3432_5258 | 1 << 31).description == "XR24(BE)")
    #expect(FourCC(rawValue: 7).description == "0x7")
    #expect(FourCC("toolong").rawValue == 0)
    let json = try JSONEncoder().encode([FourCC.nv12, .yuv420])
    #expect(String(decoding: json, as: UTF8.self) == #"["NV12","YU12"]"#)
    #expect(try JSONDecoder().decode([FourCC].self, from: json) == [.nv12, .yuv420])
}

struct RotationDecodeCase: CustomStringConvertible, Sendable {
    let entries: [String]
    let mask: UInt64
    let rotations: [Rotation]
    var description: String { entries.joined(separator: "|") }
}

/// Entries as the kernel lists a plane's "rotation" bitmask property: the supported names, each
/// with its bit number (drm_plane_create_rotation_property).
@Test(arguments: [
    RotationDecodeCase(entries: ["rotate-0"], mask: 0b1, rotations: [.none]),
    RotationDecodeCase(entries: ["rotate-0", "rotate-180"], mask: 0b101, rotations: [.none, .clockwise180]),
    RotationDecodeCase(entries: ["rotate-0", "rotate-90", "rotate-180", "rotate-270", "reflect-x", "reflect-y"],
                       mask: 0b11_1111, rotations: [.none, .clockwise90, .clockwise180, .clockwise270]),
    // DRM's rotate-90 is counter-clockwise: it gives kiosk's clockwise 270.
    RotationDecodeCase(entries: ["rotate-0", "rotate-90"], mask: 0b11, rotations: [.none, .clockwise270]),
    RotationDecodeCase(entries: ["rotate-0", "rotate-270"], mask: 0b1001, rotations: [.none, .clockwise90]),
    RotationDecodeCase(entries: [], mask: 0, rotations: []),
])
func rotationPropertyDecodes(_ test: RotationDecodeCase) {
    let bits: [String: UInt64] = ["rotate-0": 0, "rotate-90": 1, "rotate-180": 2, "rotate-270": 3, "reflect-x": 4, "reflect-y": 5]
    let support = PlaneRotationSupport(entries: test.entries.map { ($0, bits[$0]!) })
    #expect(support.mask == test.mask)
    #expect(support.rotations == test.rotations)
    #expect(support.canReflectX == test.entries.contains("reflect-x"))
}

@Test func rotationValuesAreCounterClockwiseBits() {
    #expect(PlaneRotationSupport.drmValue(for: .none) == 1 << 0)
    #expect(PlaneRotationSupport.drmValue(for: .clockwise90) == 1 << 3)
    #expect(PlaneRotationSupport.drmValue(for: .clockwise180) == 1 << 2)
    #expect(PlaneRotationSupport.drmValue(for: .clockwise270) == 1 << 1)
    // A future flag the decoder does not know is kept by its bit number.
    #expect(PlaneRotationSupport(entries: [("rotate-0", 0), ("swirl", 9)]).mask == 1 | 1 << 9)
}

enum PlaneFixtures {
    static let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 0b01, formats: [.xrgb8888, .argb8888],
                                          currentCRTCID: 40)
    static let primaryNV12 = DisplayPlaneInfo(id: 32, type: .primary, possibleCRTCs: 0b01,
                                              formats: [.xrgb8888, .nv12], scaling: .yes)
    static let overlayScaler = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 0b11,
                                                formats: [.nv12, .yuv420, .xrgb8888], scaling: .yes)
    static let overlayUnknown = DisplayPlaneInfo(id: 34, type: .overlay, possibleCRTCs: 0b01, formats: [.nv12])
    static let overlayFixed = DisplayPlaneInfo(id: 35, type: .overlay, possibleCRTCs: 0b01, formats: [.nv12], scaling: .no)
    static let overlayOtherCRTC = DisplayPlaneInfo(id: 36, type: .overlay, possibleCRTCs: 0b10, formats: [.nv12], scaling: .yes)
    static let overlayRotating = DisplayPlaneInfo(id: 37, type: .overlay, possibleCRTCs: 0b01, formats: [.nv12],
                                                  rotation: PlaneRotationSupport(mask: 0b1111), scaling: .yes)
    static let cursor = DisplayPlaneInfo(id: 38, type: .cursor, possibleCRTCs: 0b01, formats: [.argb8888, .nv12], scaling: .yes)
    static let overlayBusy = DisplayPlaneInfo(id: 39, type: .overlay, possibleCRTCs: 0b11, formats: [.nv12],
                                              currentCRTCID: 41, scaling: .yes)
}

@Test func primaryPlaneOfTheCRTC() throws {
    let second = DisplayPlaneInfo(id: 30, type: .primary, possibleCRTCs: 0b01, formats: [.xrgb8888])
    #expect(try PlaneSelection.primaryPlane(crtcIndex: 0, crtcID: 40, planes: [second, PlaneFixtures.primary]).id == 31)
    #expect(try PlaneSelection.primaryPlane(crtcIndex: 0, crtcID: 99, planes: [PlaneFixtures.overlayScaler, second]).id == 30)
    #expect(throws: DisplaySelectionError.noPrimaryPlane(crtcIndex: 1)) {
        try PlaneSelection.primaryPlane(crtcIndex: 1, crtcID: 41, planes: [PlaneFixtures.primary, PlaneFixtures.overlayScaler])
    }
}

struct ScanoutCase: CustomStringConvertible, Sendable {
    let name: String
    var format: VideoFrameFormat = .nv12
    var source = PixelSize(width: 1280, height: 720)
    var videoRotation: Rotation = .none
    var gravity: VideoGravity = .fit
    var displayRotation: Rotation = .none
    let planes: [DisplayPlaneInfo]
    /// Plane ids in the order expected; empty: the CPU path, with a reason containing `reason`.
    let expectedPlanes: [UInt32]
    var reason = ""
    var description: String { name }
}

let screen1080 = PixelSize(width: 1920, height: 1080)

@Test(arguments: [
    ScanoutCase(name: "overlay that scales", planes: [PlaneFixtures.primary, PlaneFixtures.overlayScaler], expectedPlanes: [33]),
    ScanoutCase(name: "known scaler before unknown, overlays before primary",
                gravity: .fill, planes: [PlaneFixtures.primaryNV12, PlaneFixtures.overlayUnknown, PlaneFixtures.overlayScaler],
                expectedPlanes: [33, 34, 32]),
    ScanoutCase(name: "no plane takes NV12", planes: [PlaneFixtures.primary], expectedPlanes: [], reason: "takes NV12"),
    ScanoutCase(name: "cursor planes never show video", planes: [PlaneFixtures.primary, PlaneFixtures.cursor],
                expectedPlanes: [], reason: "takes NV12"),
    ScanoutCase(name: "overlay of another CRTC", planes: [PlaneFixtures.primary, PlaneFixtures.overlayOtherCRTC],
                expectedPlanes: [], reason: "takes NV12"),
    ScanoutCase(name: "overlay busy on another CRTC", planes: [PlaneFixtures.primary, PlaneFixtures.overlayBusy],
                expectedPlanes: [], reason: "takes NV12"),
    ScanoutCase(name: "overlay that cannot scale", planes: [PlaneFixtures.overlayFixed], expectedPlanes: [],
                reason: "no plane taking NV12 can scale 1280x720 to 1920x1080"),
    ScanoutCase(name: "no scaling needed at native size", source: PixelSize(width: 1920, height: 1080),
                planes: [PlaneFixtures.overlayFixed], expectedPlanes: [35]),
    ScanoutCase(name: "4:3 with bars: primary refused", source: PixelSize(width: 640, height: 480),
                planes: [PlaneFixtures.primaryNV12], expectedPlanes: [], reason: "does not cover the screen"),
    ScanoutCase(name: "4:3 filled: primary covers", source: PixelSize(width: 640, height: 480), gravity: .fill,
                planes: [PlaneFixtures.primaryNV12], expectedPlanes: [32]),
    ScanoutCase(name: "rotated video needs a rotating plane", source: PixelSize(width: 720, height: 1280), videoRotation: .clockwise90,
                planes: [PlaneFixtures.overlayScaler], expectedPlanes: [], reason: "rotate 90°"),
    ScanoutCase(name: "rotating overlay", source: PixelSize(width: 720, height: 1280), videoRotation: .clockwise90,
                planes: [PlaneFixtures.overlayScaler, PlaneFixtures.overlayRotating], expectedPlanes: [37]),
    ScanoutCase(name: "yuv420p as YU12", format: .yuv420p, planes: [PlaneFixtures.overlayUnknown, PlaneFixtures.overlayScaler],
                expectedPlanes: [33]),
])
func videoPlaneIsChosen(_ test: ScanoutCase) {
    let layout = GravityLayout(source: test.source, rotation: test.videoRotation,
                               target: test.displayRotation.swapsAxes ? screen1080.transposed : screen1080, gravity: test.gravity)
    let candidates = PlaneSelection.videoScanoutCandidates(format: test.format, layout: layout, displayRotation: test.displayRotation,
                                                           crtcIndex: 0, crtcID: 40, planes: test.planes)
    #expect(candidates.map(\.planeID) == test.expectedPlanes)
    let plan = PlaneSelection.chooseVideoScanout(format: test.format, layout: layout, displayRotation: test.displayRotation,
                                                 crtcIndex: 0, crtcID: 40, planes: test.planes)
    switch plan {
    case .plane(let scanout):
        #expect(scanout == candidates.first)
        #expect(scanout.format == (test.format == .yuv420p ? .yuv420 : .nv12))
    case .cpu(let reason):
        #expect(test.expectedPlanes.isEmpty)
        #expect(reason.contains(test.reason), "reason: \(reason)")
    }
}

@Test func scanoutRectanglesFollowTheLayout() throws {
    // 4:3 on 16:9, fit: 1440x1080 at x 240 on the CRTC, the whole frame as source, scaling unknown.
    let layout = GravityLayout(source: PixelSize(width: 640, height: 480), target: screen1080, gravity: .fit)
    let plan = PlaneSelection.chooseVideoScanout(format: .nv12, layout: layout, crtcIndex: 0, crtcID: 40,
                                                 planes: [PlaneFixtures.overlayUnknown])
    guard case .plane(let scanout) = plan else { Issue.record("expected a plane, got \(plan)"); return }
    #expect(scanout.source == PixelRect(x: 0, y: 0, width: 640, height: 480))
    #expect(scanout.destination == PixelRect(x: 240, y: 0, width: 1440, height: 1080))
    #expect(scanout.needsTestCommit)
    #expect(scanout.rotation == .none)
}

@Test func chromaSubsampledSourceIsEvenAligned() {
    #expect(PlaneSelection.evenAligned(PixelRect(x: 1, y: 3, width: 101, height: 51)) == PixelRect(x: 2, y: 4, width: 100, height: 50))
    #expect(PlaneSelection.evenAligned(PixelRect(x: 0, y: 0, width: 1280, height: 720)) == PixelRect(x: 0, y: 0, width: 1280, height: 720))
}

@Test func portraitScreenMapsTheDestinationOntoTheCRTC() throws {
    // A 1920x1080 panel turned to portrait: the picture is laid out on 1080x1920 and the whole
    // thing turned 90° clockwise onto the CRTC. A 16:9 video fits a band across the middle.
    let layout = GravityLayout(source: PixelSize(width: 1280, height: 720), target: screen1080.transposed, gravity: .fit)
    #expect(layout.destination == PixelRect(x: 0, y: 656, width: 1080, height: 608))
    let plan = PlaneSelection.chooseVideoScanout(format: .nv12, layout: layout, displayRotation: .clockwise90,
                                                 crtcIndex: 0, crtcID: 40, planes: [PlaneFixtures.overlayRotating])
    guard case .plane(let scanout) = plan else { Issue.record("expected a plane, got \(plan)"); return }
    #expect(scanout.rotation == .clockwise90)
    #expect(scanout.destination == PixelRect(x: 656, y: 0, width: 608, height: 1080))
    #expect(!scanout.needsTestCommit)
}
