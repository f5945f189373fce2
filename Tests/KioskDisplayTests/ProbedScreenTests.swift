import Testing
@testable import KioskCore
@testable import KioskDisplay

/// `kiosk probe FILE`'s "shown:" line (#33): which plane would show the file's first frame on
/// the screen kiosk would drive, or why the CPU converts it, from the same choices the player
/// makes. A card like vkms's at 1280x720 (an overlay plane with YUV formats, no IN_FORMATS) and
/// one like a Pi's (an overlay listing SAND128 for NV12 and P030).
@Suite struct ProbedScreenTests {
    static let mode720 = DisplayMode(clockKHz: 74_250, hdisplay: 1280, hsyncStart: 1390, hsyncEnd: 1430, htotal: 1650,
                                     vdisplay: 720, vsyncStart: 725, vsyncEnd: 730, vtotal: 750, nominalRefresh: 60,
                                     flags: 0, type: DisplayMode.typePreferred)
    static let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888])

    static func snapshot(overlays: [DisplayPlaneInfo]) -> CardSnapshot {
        CardSnapshot(connectors: [DisplayConnectorInfo(id: 36, name: "Virtual-1", status: .connected, modes: [mode720], encoderIDs: [35])],
                     encoders: [DisplayEncoderInfo(id: 35, currentCRTCID: 0, possibleCRTCs: 1)],
                     crtcs: [DisplayCRTCInfo(id: 34, index: 0)], planes: [primary] + overlays, writebacks: [],
                     minSize: PixelSize(width: 1, height: 1), maxSize: PixelSize(width: 8192, height: 8192))
    }

    static let yuvOverlay = DisplayPlaneInfo(id: 40, type: .overlay, possibleCRTCs: 1, formats: [.xrgb8888, .nv12, .yuv420], scaling: .no)

    static func frame(_ width: Int, _ height: Int, _ format: VideoFrameFormat?, name: String = "yuv420p") -> ProbedScreen.Frame {
        ProbedScreen.Frame(size: PixelSize(width: width, height: height), sampleAspect: .one, rotation: .none,
                           planarFormat: format, formatName: name)
    }

    @Test func aFrameTheOverlayTakesAtItsSizeIsShownThereAsDecoded() throws {
        let screen = try #require(ProbedScreen.screen(card: "/dev/dri/card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true))
        #expect(screen.name == "card1 (Virtual-1, 1280x720)")
        #expect(screen.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit) == "plane 40 takes YU12 as decoded, no CPU conversion")
        #expect(screen.scanout(of: Self.frame(1280, 720, .nv12), gravity: .fit) == "plane 40 takes NV12 as decoded, no CPU conversion")
    }

    @Test func whatNoPlaneCanShowIsConvertedOnTheCPUWithTheReason() throws {
        let screen = try #require(ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true))
        #expect(screen.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit)
                == "the CPU converts it: no plane taking YU12 can scale 640x360 to 1280x720", "the plane says it does not scale")
        var unsaid = Self.snapshot(overlays: [Self.yuvOverlay])
        unsaid.planes[1].scaling = .unknown   // vkms: no SCALING_FILTER property
        let maybe = try #require(ProbedScreen.screen(card: "card1", snapshot: unsaid, atomic: true))
        #expect(maybe.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit)
                == "plane 40 takes YU12 as decoded, no CPU conversion, if the driver scales 640x360 to 1280x720 "
                + "(its TEST_ONLY commit at the first frame says; else the CPU converts it)")
        #expect(screen.scanout(of: Self.frame(1280, 720, nil, name: "yuv420p10le"), gravity: .fit)
                == "the CPU converts it: frames are yuv420p10le, not NV12 or YUV420 (limited range)")
        let noAtomic = try #require(ProbedScreen.screen(card: "card0", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: false))
        #expect(noAtomic.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit)
                == "the CPU converts it: the driver has no atomic commits with universal planes")
        let bochsLike = try #require(ProbedScreen.screen(card: "card0", snapshot: Self.snapshot(overlays: []), atomic: true))
        let none = bochsLike.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit)
        #expect(none.hasPrefix("the CPU converts it: ") && none.contains("YU12"), "\(none)")
    }

    @Test func aDevicesFrameGoesOnThePlaneListingItsLayoutWithoutACopy() throws {
        let sand = FormatModifier.broadcomSAND(columnBytes: 128)
        let piOverlay = DisplayPlaneInfo(id: 105, type: .overlay, possibleCRTCs: 1, formats: [.nv12, .yuv420, .p030],
                                         scaling: .yes, modifiers: [.nv12: [FormatModifier.linear, sand], .p030: [sand], .yuv420: [FormatModifier.linear]])
        let screen = try #require(ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [piOverlay]), atomic: true))
        var frame = Self.frame(1280, 720, .yuv420p)
        frame.prime = (.p030, FormatModifier.broadcomSAND(columnBytes: 128, columnHeight: 96), PixelSize(width: 3840, height: 2160))
        #expect(screen.scanout(of: frame, gravity: .fit)
                == "plane 105 takes the device's P030 (Broadcom SAND128 (column height 96)) as it is, zero copy")
        // vkms-like: no SAND in its list: the copy in memory goes on the YUV plane instead, both said.
        let vkms = try #require(ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true))
        frame.prime = (.nv12, FormatModifier.broadcomSAND(columnBytes: 128, columnHeight: 96), PixelSize(width: 1280, height: 720))
        let copied = vkms.scanout(of: frame, gravity: .fit)
        #expect(copied.hasPrefix("zero copy: no plane on CRTC #0 takes NV12 laid out as Broadcom SAND128 (column height 96)"), "\(copied)")
        #expect(copied.hasSuffix("; copied to memory; plane 40 takes YU12 as decoded, no CPU conversion"), "\(copied)")
    }

    @Test func aCardWithoutAConnectedScreenHasNone() {
        var snapshot = Self.snapshot(overlays: [Self.yuvOverlay])
        snapshot.connectors[0].status = .disconnected
        #expect(ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true) == nil)
    }
}
