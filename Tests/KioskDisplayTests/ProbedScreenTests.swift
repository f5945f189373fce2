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
        let screen = try ProbedScreen.screen(card: "/dev/dri/card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true)
        #expect(screen.name == "card1 (Virtual-1, 1280x720)")
        #expect(screen.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit) == "plane 40 takes YU12 as decoded, no CPU conversion")
        #expect(screen.scanout(of: Self.frame(1280, 720, .nv12), gravity: .fit) == "plane 40 takes NV12 as decoded, no CPU conversion")
    }

    @Test func whatNoPlaneCanShowIsConvertedOnTheCPUWithTheReason() throws {
        let screen = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true)
        #expect(screen.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit)
                == "the CPU converts it: no plane taking YU12 can scale 640x360 to 1280x720", "the plane says it does not scale")
        var unsaid = Self.snapshot(overlays: [Self.yuvOverlay])
        unsaid.planes[1].scaling = .unknown   // vkms: no SCALING_FILTER property
        let maybe = try ProbedScreen.screen(card: "card1", snapshot: unsaid, atomic: true)
        #expect(maybe.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit)
                == "plane 40 takes YU12 as decoded, no CPU conversion, if the driver scales 640x360 to 1280x720 "
                + "(its TEST_ONLY commit at the first frame says; else the CPU converts it)")
        #expect(screen.scanout(of: Self.frame(1280, 720, nil, name: "yuv420p10le"), gravity: .fit)
                == "the CPU converts it: frames are yuv420p10le, not NV12 or YUV420 (limited range)")
        let noAtomic = try ProbedScreen.screen(card: "card0", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: false)
        #expect(noAtomic.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit)
                == "the CPU converts it: the driver has no atomic commits with universal planes")
        let bochsLike = try ProbedScreen.screen(card: "card0", snapshot: Self.snapshot(overlays: []), atomic: true)
        let none = bochsLike.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit)
        #expect(none.hasPrefix("the CPU converts it: ") && none.contains("YU12"), "\(none)")
    }

    @Test func aDevicesFrameGoesOnThePlaneListingItsLayoutWithoutACopy() throws {
        let sand = FormatModifier.broadcomSAND(columnBytes: 128)
        let piOverlay = DisplayPlaneInfo(id: 105, type: .overlay, possibleCRTCs: 1, formats: [.nv12, .yuv420, .p030],
                                         scaling: .yes, modifiers: [.nv12: [FormatModifier.linear, sand], .p030: [sand], .yuv420: [FormatModifier.linear]])
        let screen = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [piOverlay]), atomic: true)
        var frame = Self.frame(1280, 720, .yuv420p)
        frame.prime = (.p030, FormatModifier.broadcomSAND(columnBytes: 128, columnHeight: 96), PixelSize(width: 3840, height: 2160))
        #expect(screen.scanout(of: frame, gravity: .fit)
                == "plane 105 takes the device's P030 (Broadcom SAND128 (column height 96)) as it is, zero copy")
        // vkms-like: no SAND in its list: the copy in memory goes on the YUV plane instead, both said.
        let vkms = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true)
        frame.prime = (.nv12, FormatModifier.broadcomSAND(columnBytes: 128, columnHeight: 96), PixelSize(width: 1280, height: 720))
        let copied = vkms.scanout(of: frame, gravity: .fit)
        #expect(copied.hasPrefix("zero copy: no plane on CRTC #0 takes NV12 laid out as Broadcom SAND128 (column height 96)"), "\(copied)")
        #expect(copied.hasSuffix("; copied to memory; plane 40 takes YU12 as decoded, no CPU conversion"), "\(copied)")
    }

    @Test func aCardWithoutAConnectedScreenHasNone() {
        var snapshot = Self.snapshot(overlays: [Self.yuvOverlay])
        snapshot.connectors[0].status = .disconnected
        #expect(throws: (any Error).self) { try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true) }
    }

    // kiosk.conf's display section, as the player reads it: the connector and mode it names,
    // its rotation (by the primary plane where it can turn, else by the CPU) and video_plane.

    @Test func theConnectorAndModeKioskConfNamesAreTheOnesAnswered() throws {
        let mode480 = DisplayMode(clockKHz: 25_175, hdisplay: 640, hsyncStart: 656, hsyncEnd: 752, htotal: 800,
                                  vdisplay: 480, vsyncStart: 490, vsyncEnd: 492, vtotal: 525, nominalRefresh: 60, flags: 0, type: 0)
        var snapshot = Self.snapshot(overlays: [Self.yuvOverlay])
        snapshot.connectors[0].modes.append(mode480)
        snapshot.connectors.append(DisplayConnectorInfo(id: 37, name: "HDMI-A-1", status: .connected, modes: [mode480], encoderIDs: [35]))
        var options = DRMDisplayOptions()
        options.mode = ModeRequest(size: PixelSize(width: 640, height: 480))
        let small = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options)
        #expect(small.name == "card1 (Virtual-1, 640x480)")
        #expect(small.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit) == "plane 40 takes YU12 as decoded, no CPU conversion",
                "640x360 fits 640x480 unscaled; on the preferred 1280x720 it would have to scale")
        options = DRMDisplayOptions(connector: "HDMI-A-1")
        #expect(try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options).name == "card1 (HDMI-A-1, 640x480)")
        options = DRMDisplayOptions(connector: "DP-3")
        #expect(throws: (any Error).self, "a connector the card does not have is said, not replaced by another") {
            try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options)
        }
        options = DRMDisplayOptions()
        options.mode = ModeRequest(size: PixelSize(width: 3840, height: 2160))
        #expect(throws: (any Error).self) { try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options) }
    }

    @Test func videoPlaneOffInKioskConfIsTheReasonTheCPUConverts() throws {
        var options = DRMDisplayOptions()
        options.videoPlane = .off
        let screen = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true, options: options)
        #expect(screen.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit) == "the CPU converts it: display.video_plane is off")
        var frame = Self.frame(1280, 720, .yuv420p)
        frame.prime = (.nv12, FormatModifier.linear, PixelSize(width: 1280, height: 720))
        #expect(screen.scanout(of: frame, gravity: .fit)
                == "zero copy: display.video_plane is off; copied to memory; the CPU converts it: display.video_plane is off")
    }

    @Test func aTurnedScreenIsLaidOutAsThePlayerLaysItOut() throws {
        // The primary plane cannot turn: the CPU turns the picture, and a landscape frame on a
        // portrait screen lies across it, turned; the plane would have to rotate it, which it cannot.
        var options = DRMDisplayOptions(rotation: .clockwise90)
        let byCPU = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true, options: options)
        #expect(byCPU.name == "card1 (Virtual-1, 1280x720, turned 90° by the CPU)")
        #expect(byCPU.bufferSize == PixelSize(width: 1280, height: 720) && byCPU.viewerSize == PixelSize(width: 720, height: 1280))
        let turned = byCPU.scanout(of: Self.frame(720, 1280, .yuv420p), gravity: .fit)
        #expect(turned == "the CPU converts it: no plane taking YU12 can rotate 90°", "a plane without rotation cannot show a turned frame")
        // A plane that turns (vkms's primary and overlays offer rotation): the buffers stand
        // upright, 720x1280, and a portrait 720x1280 clip fills them on the overlay, turned by it.
        var snapshot = Self.snapshot(overlays: [Self.yuvOverlay])
        for index in snapshot.planes.indices { snapshot.planes[index].rotation = PlaneRotationSupport(mask: 0x3f) }
        let byPlane = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options)
        #expect(byPlane.name == "card1 (Virtual-1, 1280x720, turned 90° by the plane)")
        #expect(byPlane.bufferSize == PixelSize(width: 720, height: 1280))
        #expect(byPlane.scanout(of: Self.frame(720, 1280, .yuv420p), gravity: .fit)
                == "plane 40 takes YU12 as decoded, no CPU conversion, turned 90° by the plane")
        options.rotation = .none
        let upright = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: options)
        #expect(upright.scanout(of: Self.frame(720, 1280, .yuv420p), gravity: .fit).hasPrefix("the CPU converts it: "),
                "unturned, the portrait clip would be scaled into the landscape screen, which the plane does not do")
    }

    /// Two screens on one card (vkms with a second CRTC, as configfs makes it): the YUV overlay
    /// can sit only on CRTC 0. Alone, HDMI-A-1 would take CRTC 0 and the plane; after the
    /// screen kiosk.conf lists before it (Virtual-1, which takes CRTC 0 first in the player),
    /// it gets CRTC 1 and the CPU converts: the probe answered "plane 40" for a screen that
    /// would never have it.
    @Test func theScreensOpenedBeforeTakeTheirCRTCsFirst() throws {
        var snapshot = Self.snapshot(overlays: [Self.yuvOverlay])
        snapshot.encoders = [DisplayEncoderInfo(id: 35, currentCRTCID: 0, possibleCRTCs: 0b11)]
        snapshot.crtcs.append(DisplayCRTCInfo(id: 50, index: 1))
        snapshot.planes.append(DisplayPlaneInfo(id: 51, type: .primary, possibleCRTCs: 0b10, formats: [.xrgb8888]))
        snapshot.connectors.append(DisplayConnectorInfo(id: 37, name: "HDMI-A-1", status: .connected, modes: [Self.mode720], encoderIDs: [35]))
        let second = DRMDisplayOptions(connector: "HDMI-A-1")
        let alone = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: second)
        #expect(alone.crtc.id == 34)
        #expect(alone.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit) == "plane 40 takes YU12 as decoded, no CPU conversion")
        let afterFirst = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: second,
                                                 after: [DRMDisplayOptions(connector: "Virtual-1")])
        #expect(afterFirst.crtc.id == 50, "Virtual-1 took CRTC 0")
        let answer = afterFirst.scanout(of: Self.frame(1280, 720, .yuv420p), gravity: .fit)
        #expect(answer.hasPrefix("the CPU converts it: ") && answer.contains("YU12"), "\(answer)")
        // A screen before it that cannot open (a connector the card lacks) takes nothing.
        let afterMissing = try ProbedScreen.screen(card: "card1", snapshot: snapshot, atomic: true, options: second,
                                                   after: [DRMDisplayOptions(connector: "DP-3")])
        #expect(afterMissing.crtc.id == 34)
    }

    @Test func aRegionOfTheScreenIsWhereThePictureIsLaidOut() throws {
        let screen = try ProbedScreen.screen(card: "card1", snapshot: Self.snapshot(overlays: [Self.yuvOverlay]), atomic: true)
        let left = ScreenRegion(x: .pixels(0), y: .pixels(0), width: .pixels(640), height: .pixels(360))
        #expect(screen.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit, region: left)
                == "plane 40 takes YU12 as decoded, no CPU conversion", "640x360 in a 640x360 region: no scaling")
        #expect(screen.scanout(of: Self.frame(640, 360, .yuv420p), gravity: .fit).hasPrefix("the CPU converts it: "))
    }
}
