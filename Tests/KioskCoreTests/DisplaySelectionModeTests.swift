import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// Real CEA/DMT timings, as a connector lists them (preferred first, like the kernel sorts).
enum ModeFixtures {
    static func mode(_ w: UInt16, _ h: UInt16, clock: UInt32, htotal: UInt16, vtotal: UInt16, vrefresh: UInt32,
                     preferred: Bool = false, interlaced: Bool = false) -> DisplayMode {
        DisplayMode(clockKHz: clock, hdisplay: w, hsyncStart: w + 88, hsyncEnd: w + 132, htotal: htotal,
                    vdisplay: h, vsyncStart: h + 4, vsyncEnd: h + 9, vtotal: vtotal, nominalRefresh: vrefresh,
                    flags: interlaced ? DisplayMode.flagInterlace : 0,
                    type: preferred ? DisplayMode.typePreferred : 0)
    }

    static let p1080at60 = mode(1920, 1080, clock: 148_500, htotal: 2200, vtotal: 1125, vrefresh: 60, preferred: true)
    static let p1080at5994 = mode(1920, 1080, clock: 148_352, htotal: 2200, vtotal: 1125, vrefresh: 60)
    static let p1080at50 = mode(1920, 1080, clock: 148_500, htotal: 2640, vtotal: 1125, vrefresh: 50)
    static let i1080at60 = mode(1920, 1080, clock: 74_250, htotal: 2200, vtotal: 1125, vrefresh: 60, interlaced: true)
    static let p720at60 = mode(1280, 720, clock: 74_250, htotal: 1650, vtotal: 750, vrefresh: 60)
    static let xga = mode(1024, 768, clock: 65_000, htotal: 1344, vtotal: 806, vrefresh: 60)
    static let uhd30 = mode(3840, 2160, clock: 297_000, htotal: 4400, vtotal: 2250, vrefresh: 30)

    static let tv = [p1080at60, p1080at5994, p1080at50, i1080at60, p720at60, xga]
}

struct ModeParseCase: CustomStringConvertible, Sendable {
    let text: String
    let expected: ModeRequest??   // .some(nil): "preferred"; nil: invalid
    var description: String { "'\(text)'" }
}

@Test(arguments: [
    ModeParseCase(text: "1920x1080", expected: .some(ModeRequest(size: PixelSize(width: 1920, height: 1080)))),
    ModeParseCase(text: "1920x1080@60", expected: .some(ModeRequest(size: PixelSize(width: 1920, height: 1080), refreshHz: 60))),
    ModeParseCase(text: " 1280X720@59.94Hz ", expected: .some(ModeRequest(size: PixelSize(width: 1280, height: 720), refreshHz: 59.94))),
    ModeParseCase(text: "preferred", expected: .some(nil)),
    ModeParseCase(text: "Auto", expected: .some(nil)),
    ModeParseCase(text: "", expected: .some(nil)),
    ModeParseCase(text: "1920", expected: nil),
    ModeParseCase(text: "1920x", expected: nil),
    ModeParseCase(text: "x1080", expected: nil),
    ModeParseCase(text: "0x1080", expected: nil),
    ModeParseCase(text: "1920x1080@", expected: nil),
    ModeParseCase(text: "1920x1080@fast", expected: nil),
    ModeParseCase(text: "1920x1080@0", expected: nil),
    ModeParseCase(text: "1920x1080@60@60", expected: nil),
])
func modeSpecParses(_ test: ModeParseCase) throws {
    if let expected = test.expected {
        #expect(try ModeRequest.parse(test.text) == expected)
    } else {
        #expect(throws: DisplaySelectionError.invalidModeSpec(test.text)) { try ModeRequest.parse(test.text) }
    }
}

@Test func invalidModeSpecMessageShowsTheFormat() {
    let message = DisplaySelectionError.invalidModeSpec("1920by1080").description
    #expect(message.contains("'1920by1080'") && message.contains("WIDTHxHEIGHT@HZ"))
}

@Test func refreshRateComesExactFromTimings() {
    #expect(ModeFixtures.p1080at60.refreshRate == Rational(60, 1))
    #expect(ModeFixtures.p1080at60.refreshInterval == MediaTime(value: 1, timescale: 60))
    #expect(ModeFixtures.p1080at5994.refreshInterval == MediaTime(value: 2_475_000, timescale: 148_352_000))
    #expect(abs(ModeFixtures.p1080at5994.refreshHz - 59.9402) < 0.0001)
    #expect(ModeFixtures.p1080at50.refreshHz == 50)
    // Interlaced: a refresh is a field, half the lines.
    #expect(ModeFixtures.i1080at60.refreshInterval == MediaTime(value: 1, timescale: 60))
    #expect(ModeFixtures.uhd30.refreshInterval == MediaTime(value: 1, timescale: 30))
    // Timings missing (some virtual drivers): the kernel's rounded vrefresh.
    let bare = DisplayMode(clockKHz: 0, hdisplay: 800, hsyncStart: 0, hsyncEnd: 0, htotal: 0, vdisplay: 600,
                           vsyncStart: 0, vsyncEnd: 0, vtotal: 0, nominalRefresh: 75)
    #expect(bare.refreshInterval == MediaTime(value: 1, timescale: 75))
    #expect(bare.refreshHz == 75)
}

@Test func modeDescriptions() {
    #expect(ModeFixtures.p1080at60.description == "1920x1080@60.00")
    #expect(ModeFixtures.p1080at5994.description == "1920x1080@59.94")
    #expect(ModeFixtures.i1080at60.description == "1920x1080i@60.00")
    #expect(ModeFixtures.xga.description == "1024x768@60.00")
}

struct ModeChoiceCase: CustomStringConvertible, Sendable {
    let request: String
    let modes: [DisplayMode]
    let expected: DisplayMode
    var description: String { "\(request) -> \(expected)" }
}

@Test(arguments: [
    ModeChoiceCase(request: "preferred", modes: ModeFixtures.tv, expected: ModeFixtures.p1080at60),
    // No preferred flag: the first listed, as the kernel sorts best first.
    ModeChoiceCase(request: "preferred", modes: [ModeFixtures.xga, ModeFixtures.p720at60], expected: ModeFixtures.xga),
    ModeChoiceCase(request: "1920x1080", modes: ModeFixtures.tv, expected: ModeFixtures.p1080at60),
    ModeChoiceCase(request: "1920x1080@60", modes: ModeFixtures.tv, expected: ModeFixtures.p1080at60),
    ModeChoiceCase(request: "1920x1080@59.94", modes: ModeFixtures.tv, expected: ModeFixtures.p1080at5994),
    ModeChoiceCase(request: "1920x1080@50", modes: ModeFixtures.tv, expected: ModeFixtures.p1080at50),
    ModeChoiceCase(request: "1280x720", modes: ModeFixtures.tv, expected: ModeFixtures.p720at60),
    // Without a preferred 1080 mode: progressive beats interlaced, then the highest refresh.
    ModeChoiceCase(request: "1920x1080", modes: [ModeFixtures.i1080at60, ModeFixtures.p1080at50, ModeFixtures.p1080at5994],
                   expected: ModeFixtures.p1080at5994),
    // "@60" takes 59.94 when that is all there is.
    ModeChoiceCase(request: "1920x1080@60", modes: [ModeFixtures.p1080at50, ModeFixtures.p1080at5994],
                   expected: ModeFixtures.p1080at5994),
])
func modeIsChosen(_ test: ModeChoiceCase) throws {
    let request = try ModeRequest.parse(test.request)
    #expect(try ModeSelection.choose(request, from: test.modes, connector: "HDMI-A-1") == test.expected)
}

@Test(arguments: ["1920x1080@30", "1920x1080@55", "1280x1024", "3840x2160"])
func modeNotOfferedListsTheOffered(_ spec: String) throws {
    let request = try ModeRequest.parse(spec)
    do {
        _ = try ModeSelection.choose(request, from: ModeFixtures.tv, connector: "HDMI-A-1")
        Issue.record("\(spec) should not be offered")
    } catch {
        guard case .modeNotOffered(let requested, let connector, let available) = error else {
            Issue.record("unexpected \(error)"); return
        }
        #expect(requested == request!.description)
        #expect(connector == "HDMI-A-1")
        #expect(available == ["1920x1080@60.00 (preferred)", "1920x1080@59.94", "1920x1080@50.00",
                              "1920x1080i@60.00", "1280x720@60.00", "1024x768@60.00"])
        #expect(error.description.contains("\(request!) is not offered by HDMI-A-1; it offers: 1920x1080@60.00 (preferred), "))
    }
}

@Test func connectorWithoutModesIsAnError() {
    #expect(throws: DisplaySelectionError.noModes(connector: "DP-1")) {
        try ModeSelection.choose(nil, from: [], connector: "DP-1")
    }
}

@Test func modeRequestParsingForDisplaySpecs() {
    // DisplaySpec's fields: a concrete mode or nothing; "preferred" is handled before.
    #expect(ModeRequest(parsing: "preferred") == nil)
    #expect(ModeRequest(parsing: "1920x1080@60") == ModeRequest(size: PixelSize(width: 1920, height: 1080), refreshRate: 60))
    #expect(ModeRequest(parsing: "1920x1080@59.94")?.refreshRate == 60)
    #expect(ModeRequest(parsing: "1920x1080")?.refreshRate == nil)
    #expect(ModeRequest(parsing: "1920x1080@0") == nil)
}
