import CDRM
import Foundation
import Testing
@testable import KioskCore
@testable import KioskDisplay

/// What needs no card: the errors for a machine without one, and KioskCore's spelled-out DRM
/// constants checked against libdrm's own headers.

@Test func missingDRMDirectorySaysNoDriver() {
    // do/catch, not #expect { } throws: { }: Swift 6.0 (trixie's, deploy/arm64) crashes
    // type-checking that macro around a typed-throws call.
    do {
        let cards = try DRMDevices.cardPaths(in: "/nonexistent/dri")
        Issue.record("expected noDRMDirectory, found \(cards)")
    } catch {
        guard case .noDRMDirectory("/nonexistent/dri") = error else { Issue.record("other error: \(error)"); return }
        #expect("\(error)" == "no DRM device: /nonexistent/dri is missing (no GPU driver loaded?)")
    }
    let probe = DRMProbe.run(directory: "/nonexistent/dri")
    #expect(probe.cards.isEmpty)
    #expect(probe.text == "no DRM device: /nonexistent/dri is missing (no GPU driver loaded?)")
}

@Test func directoryWithoutCardNodesSaysSo() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-dri-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    _ = FileManager.default.createFile(atPath: dir.path + "/renderD128", contents: nil)
    _ = FileManager.default.createFile(atPath: dir.path + "/card1", contents: nil)
    _ = FileManager.default.createFile(atPath: dir.path + "/card0", contents: nil)
    _ = FileManager.default.createFile(atPath: dir.path + "/card10", contents: nil)
    #expect(try DRMDevices.cardPaths(in: dir.path) == ["card0", "card1", "card10"].map { dir.path + "/" + $0 })
    for name in ["card0", "card1", "card10"] { try FileManager.default.removeItem(atPath: dir.path + "/" + name) }
    #expect(throws: DRMError.self) { try DRMDevices.cardPaths(in: dir.path) }
    do {
        _ = try DRMDevices.cardPaths(in: dir.path)
    } catch {
        #expect(error.description == "no DRM device: \(dir.path) has no card* node (no display driver with modesetting loaded?)")
    }
}

@Test func openingWhatIsNotACardFailsClearly() {
    do {
        _ = try DRMDisplay(options: DRMDisplayOptions(card: "/nonexistent/card0"))
        Issue.record("opened a card that does not exist")
    } catch {
        guard case .noSuchCard("/nonexistent/card0") = error else { Issue.record("got \(error)"); return }
    }
    do {
        _ = try DRMDisplay(options: DRMDisplayOptions(card: "/dev/null"))
        Issue.record("opened /dev/null as a card")
    } catch {
        guard case .notDRMDevice("/dev/null") = error else { Issue.record("got \(error)"); return }
        #expect("\(error)" == "/dev/null is not a DRM device (expected a node like /dev/dri/card0)")
    }
    #expect(DRMDevices.resolve("card1") == "/dev/dri/card1")
    #expect(DRMDevices.resolve("/dev/dri/card2") == "/dev/dri/card2")
}

@Test func errorMessagesNameTheFixes() {
    let denied = DRMError.permissionDenied(path: "/dev/dri/card0", group: "video", gid: 44)
    #expect(denied.description == "cannot open /dev/dri/card0: permission denied; the user must be in group 'video' "
            + "(usermod -aG video USER, then log in again) or hold a logind seat")
    let deniedNoName = DRMError.permissionDenied(path: "/dev/dri/card0", group: nil, gid: 991)
    #expect(deniedNoName.description.contains("group id 991"))
    let master = DRMError.anotherMaster(path: "/dev/dri/card0", holder: "weston pid 812")
    #expect(master.description.hasPrefix("another process is DRM master on /dev/dri/card0 (weston pid 812)"))
    let noScreen = DRMError.noConnectedScreen([("/dev/dri/card0", ["HDMI-A-1 (disconnected, 0 modes)"]),
                                               ("/dev/dri/card1", [])])
    #expect(noScreen.description == "no connected screen on any card; /dev/dri/card0: HDMI-A-1 (disconnected, 0 modes); "
            + "/dev/dri/card1: no connectors")
    let mode = DRMError.selection(path: "/dev/dri/card0", .modeNotOffered(requested: "1280x1024", connector: "Virtual-1",
                                                                          available: ["1024x768@60.00 (preferred)"]))
    #expect(mode.description == "/dev/dri/card0: mode 1280x1024 is not offered by Virtual-1; it offers: 1024x768@60.00 (preferred)")
    #expect(DRMError.callFailed(what: "queueing a page flip", call: "drmModePageFlip", errno: EBUSY).description
            == "queueing a page flip failed: drmModePageFlip: Device or resource busy (errno 16)")
}

/// KioskCore is pure Swift and spells DRM's constants out; they must match libdrm's headers.
@Test func kioskCoreConstantsMatchTheKernelHeaders() {
    #expect(PlaneRotationSupport.rotate0 == UInt64(DRM_MODE_ROTATE_0))
    #expect(PlaneRotationSupport.rotate90CCW == UInt64(DRM_MODE_ROTATE_90))
    #expect(PlaneRotationSupport.rotate180 == UInt64(DRM_MODE_ROTATE_180))
    #expect(PlaneRotationSupport.rotate270CCW == UInt64(DRM_MODE_ROTATE_270))
    #expect(PlaneRotationSupport.reflectX == UInt64(DRM_MODE_REFLECT_X))
    #expect(PlaneRotationSupport.reflectY == UInt64(DRM_MODE_REFLECT_Y))
    #expect(DisplayMode.flagInterlace == UInt32(DRM_MODE_FLAG_INTERLACE))
    #expect(DisplayMode.flagDoubleScan == UInt32(DRM_MODE_FLAG_DBLSCAN))
    #expect(DisplayMode.typePreferred == UInt32(DRM_MODE_TYPE_PREFERRED))
    // The kernel's connector names, as libdrm knows them.
    for type in UInt32(0)...UInt32(DRM_MODE_CONNECTOR_USB) {
        guard let name = drmModeGetConnectorTypeName(type) else { Issue.record("libdrm lacks type \(type)"); continue }
        #expect(ConnectorType.name(ofType: type) == String(cString: name))
    }
}

@Test func modeRoundTripsThroughTheKernelStructure() {
    let mode = DisplayMode(clockKHz: 148_500, hdisplay: 1920, hsyncStart: 2008, hsyncEnd: 2052, htotal: 2200, hskew: 3,
                           vdisplay: 1080, vsyncStart: 1084, vsyncEnd: 1089, vtotal: 1125, vscan: 1, nominalRefresh: 60,
                           flags: UInt32(DRM_MODE_FLAG_PHSYNC | DRM_MODE_FLAG_PVSYNC),
                           type: UInt32(DRM_MODE_TYPE_PREFERRED | DRM_MODE_TYPE_DRIVER), name: "1920x1080")
    let info = mode.drmModeInfo
    #expect(info.hdisplay == 1920 && info.vtotal == 1125 && info.clock == 148_500 && info.hskew == 3)
    #expect(DisplayMode(info) == mode)
    #expect(DisplayMode(info).isPreferred)
    // A name longer than the kernel's 32 bytes is cut, NUL-terminated.
    var long = mode
    long.name = String(repeating: "x", count: 40)
    #expect(DisplayMode(long.drmModeInfo).name == String(repeating: "x", count: 31))
}

@Test func probeReportEncodesAsJSON() throws {
    let plane = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888, .nv12],
                                 rotation: PlaneRotationSupport(mask: 0b101))
    var card = DRMProbe.CardReport(path: "/dev/dri/card0", driver: "bochs-drm")
    card.planes = [DRMProbe.PlaneReport(info: plane, rotations: [0, 180], properties: [
        DRMProbe.PropertyReport(name: "type", value: 1, text: "Primary", choices: ["Overlay", "Primary", "Cursor"], immutable: true),
    ])]
    let probe = DRMProbe(directory: "/dev/dri", cards: [card], error: nil)
    let json = String(decoding: try JSONEncoder().encode(probe), as: UTF8.self)
    #expect(json.contains(#""formats":["XR24","NV12"]"#))
    #expect(try JSONDecoder().decode(DRMProbe.self, from: Data(json.utf8)).cards == [card])
    #expect(probe.text.contains("plane 31 primary: CRTCs #0, rotates 0°/180°"))
    #expect(probe.text.contains("formats: XR24 NV12"))
    #expect(probe.text.contains("type=Primary [Overlay,Primary,Cursor] (immutable)"))
}

/// Writeback connectors are listed apart from the screens, with their CRTCs and formats, and only
/// one that can write back kiosk's CRTC in XRGB8888 serves its screenshots.
@Test func writebackConnectorsAreReportedAndMatchedToTheirCRTC() throws {
    let writeback = WritebackConnectorInfo(id: 87, name: "Writeback-1", possibleCRTCs: 0b10,
                                           formats: [.xrgb8888, .argb8888, "RG16"])
    var card = DRMProbe.CardReport(path: "/dev/dri/card1", driver: "vkms")
    card.writebacks = [writeback]
    let probe = DRMProbe(directory: "/dev/dri", cards: [card], error: nil)
    #expect(probe.text.contains("writeback connector 87 Writeback-1: CRTCs #1, formats XR24 AR24 RG16"), "\(probe.text)")
    let json = try JSONEncoder().encode(probe)
    #expect(try JSONDecoder().decode(DRMProbe.self, from: json).cards.first?.writebacks == [writeback])
    #expect(writeback.serves(crtcIndex: 1) && !writeback.serves(crtcIndex: 0) && !writeback.serves(crtcIndex: 40))
    let rgb565Only = WritebackConnectorInfo(id: 88, name: "Writeback-2", possibleCRTCs: 0b1, formats: ["RG16"])
    #expect(!rgb565Only.serves(crtcIndex: 0), "kiosk reads XRGB8888 back")
}

/// A screenshot on a writeback display: the last read-back is shared while nothing was
/// committed since (come or not); overtaken before its picture came, it is never followed by a
/// new job (vkms dropped it, and the next job's picture would signal its fence); a new job once
/// the last picture came, or for the first shot.
@Test func aReadBackIsSharedUntilACommitAndNeverFollowsAnOvertakenOne() {
    #expect(ReadBackStep.next(last: nil, commitsNow: 7) == .commitNew)
    #expect(ReadBackStep.next(last: (commitsAfter: 7, arrived: false), commitsNow: 7) == .shareLast)
    #expect(ReadBackStep.next(last: (commitsAfter: 7, arrived: true), commitsNow: 7) == .shareLast)
    #expect(ReadBackStep.next(last: (commitsAfter: 7, arrived: false), commitsNow: 8) == .compose)
    #expect(ReadBackStep.next(last: (commitsAfter: 7, arrived: true), commitsNow: 9) == .commitNew)
}
