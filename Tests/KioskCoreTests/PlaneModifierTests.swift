import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture

/// A plane's IN_FORMATS and a frame's modifier (#33): a Raspberry Pi's HEVC decoder hands its
/// frames over in Broadcom's SAND layout, with the column height in the modifier; vc4's planes
/// list SAND128 with none. The plane is chosen by the pair, the height masked out.
private let size1080 = PixelSize(width: 1920, height: 1080)
private let layout = GravityLayout(source: size1080, target: size1080, gravity: .fit)
private let primary = DisplayPlaneInfo(id: 31, type: .primary, possibleCRTCs: 1, formats: [.xrgb8888], currentCRTCID: 40)
private let sand128 = FormatModifier.broadcomSAND(columnBytes: 128)
private let sand128Height96 = FormatModifier.broadcomSAND(columnBytes: 128, columnHeight: 96)

private func choose(_ format: FourCC, _ modifier: UInt64, _ planes: [DisplayPlaneInfo]) -> DirectScanoutAnswer {
    PlaneSelection.choosePrimeScanout(format: format, modifier: modifier, layout: layout, primaryPlaneID: 31,
                                      crtcIndex: 0, crtcID: 40, planes: [primary] + planes)
}

@Test func broadcomModifiersAreDRMs() {
    // drm_fourcc.h: fourcc_mod_code(BROADCOM, 4) is SAND128; fourcc_mod_broadcom_code(4, 96) carries the height in bits 8-55.
    #expect(sand128 == 0x0700_0000_0000_0004)
    #expect(sand128Height96 == 0x0700_0000_0000_6004)
    #expect(FormatModifier.withoutParameter(sand128Height96) == sand128)
    #expect(FormatModifier.withoutParameter(FormatModifier.linear) == FormatModifier.linear)
    // Intel's Y tiling (vendor 1, code 2) has no parameter: nothing masked.
    #expect(FormatModifier.withoutParameter(0x0100_0000_0000_0002) == 0x0100_0000_0000_0002)
    #expect(FourCC.p030.rawValue == 0x3033_3050)
}

@Test func modifiersHaveNamesForTheLog() {
    #expect(FormatModifier.name(FormatModifier.linear) == "LINEAR")
    #expect(FormatModifier.name(sand128) == "Broadcom SAND128")
    #expect(FormatModifier.name(sand128Height96) == "Broadcom SAND128 (column height 96)")
    #expect(FormatModifier.name(FormatModifier.broadcomSAND(columnBytes: 256, columnHeight: 1088)) == "Broadcom SAND256 (column height 1088)")
    #expect(FormatModifier.name(0x0100_0000_0000_0002) == "Intel 0x2")
    #expect(FormatModifier.name(FormatModifier.invalid) == "none said (the driver's default)")
}

@Test func aSANDFrameGoesOnThePlaneListingSANDWhateverItsColumnHeight() {
    let linearOnly = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.nv12, .p030],
                                      modifiers: [.nv12: [FormatModifier.linear]])
    let sandToo = DisplayPlaneInfo(id: 35, type: .overlay, possibleCRTCs: 1, formats: [.nv12, .p030],
                                   modifiers: [.nv12: [FormatModifier.linear, sand128], .p030: [sand128]])
    guard case .ready(let sand) = choose(.nv12, sand128Height96, [linearOnly, sandToo]) else {
        Issue.record("\(choose(.nv12, sand128Height96, [linearOnly, sandToo]))"); return
    }
    #expect(sand.planeID == 35)
    // 10-bit HEVC comes as P030 in SAND128.
    guard case .ready(let tenBit) = choose(.p030, sand128Height96, [linearOnly, sandToo]) else { Issue.record("P030"); return }
    #expect(tenBit.planeID == 35 && tenBit.format == .p030)
    // A linear frame still takes the first plane that lists it.
    guard case .ready(let linear) = choose(.nv12, FormatModifier.linear, [linearOnly, sandToo]) else { Issue.record("linear"); return }
    #expect(linear.planeID == 33)
    // A frame that says no modifier takes the driver's default: any plane of the format.
    guard case .ready(let implicit) = choose(.nv12, FormatModifier.invalid, [linearOnly]) else { Issue.record("implicit"); return }
    #expect(implicit.planeID == 33)
}

@Test func aLayoutNoPlaneListsIsRefusedSayingWhich() {
    let linearOnly = DisplayPlaneInfo(id: 33, type: .overlay, possibleCRTCs: 1, formats: [.nv12],
                                      modifiers: [.nv12: [FormatModifier.linear]])
    #expect(choose(.nv12, sand128Height96, [linearOnly])
            == .refused(reason: "no plane on CRTC #0 takes NV12 laid out as Broadcom SAND128 (column height 96)"))
    // SAND64 is not SAND128 with another height.
    let sand64 = FormatModifier.broadcomSAND(columnBytes: 64, columnHeight: 96)
    let sandPlane = DisplayPlaneInfo(id: 35, type: .overlay, possibleCRTCs: 1, formats: [.nv12], modifiers: [.nv12: [sand128]])
    #expect(choose(.nv12, sand64, [sandPlane])
            == .refused(reason: "no plane on CRTC #0 takes NV12 laid out as Broadcom SAND64 (column height 96)"))
    // A plane without IN_FORMATS scans out linear buffers only.
    let noList = DisplayPlaneInfo(id: 37, type: .overlay, possibleCRTCs: 1, formats: [.nv12])
    #expect(noList.takes(.nv12, modifier: FormatModifier.linear))
    #expect(!noList.takes(.nv12, modifier: sand128Height96))
    #expect(choose(.nv12, sand128Height96, [noList])
            == .refused(reason: "no plane on CRTC #0 takes NV12 laid out as Broadcom SAND128 (column height 96)"))
    // A plane that lists the modifier for another format only.
    let p030Only = DisplayPlaneInfo(id: 39, type: .overlay, possibleCRTCs: 1, formats: [.nv12, .p030], modifiers: [.p030: [sand128]])
    #expect(!p030Only.takes(.nv12, modifier: sand128Height96))
    #expect(p030Only.takes(.p030, modifier: sand128Height96))
}

@Test func modifiersAreReadFromTheCommandLine() {
    #expect(FormatModifier.parse("linear") == FormatModifier.linear)
    #expect(FormatModifier.parse("SAND128") == sand128)
    #expect(FormatModifier.parse("sand128:96") == sand128Height96)
    #expect(FormatModifier.parse("sand32:8") == FormatModifier.broadcomSAND(columnBytes: 32, columnHeight: 8))
    #expect(FormatModifier.parse("0x0100000000000002") == 0x0100_0000_0000_0002)
    for bad in ["", "sand", "sand100", "sand128:", "sand128:x", "sand128:96:1", "0x", "0xzz", "0x00ffffffffffffff", "tiled"] {
        #expect(FormatModifier.parse(bad) == nil, "\(bad)")
    }
}

@Test func theProbeGroupsAPlanesFormatsByTheLayoutsTheyAreListedWith() {
    let text = FormatModifier.describe(listed: [.xrgb8888: [FormatModifier.linear], .nv12: [FormatModifier.linear, sand128],
                                                .p030: [FormatModifier.linear, sand128], .argb8888: [FormatModifier.linear]])
    #expect(text == "LINEAR: AR24 XR24; LINEAR, Broadcom SAND128: NV12 P030")
    #expect(FormatModifier.describe(listed: [:]) == "none")
    #expect(FormatModifier.describe(listed: [.nv12: []]) == "none: NV12")
    #expect(FormatModifier.describe(listed: [.nv12: [FormatModifier.linear], .xrgb8888: [FormatModifier.linear]]) == "LINEAR (all 2 formats)")
}

@Test func aPlanesLayoutsAreKeyedByFormatInJSON() throws {
    let plane = DisplayPlaneInfo(id: 35, type: .overlay, possibleCRTCs: 1, formats: [.nv12], modifiers: [.nv12: [FormatModifier.linear, sand128]])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(plane), as: UTF8.self)
    // In hex: as a JSON number SAND128 (0x700000000000004) is past a double's 53 bits (jq, JavaScript).
    #expect(text.contains(#""modifiers":{"NV12":["0x0","0x700000000000004"]}"#), "\(text)")
    #expect(try JSONDecoder().decode(DisplayPlaneInfo.self, from: Data(text.utf8)) == plane)
    #expect(throws: DecodingError.self) {
        try JSONDecoder().decode(DisplayPlaneInfo.self, from: Data(text.replacingOccurrences(of: "0x0", with: "zero").utf8))
    }
    // A plane recorded before IN_FORMATS was read decodes without it.
    let older = text.replacingOccurrences(of: #","modifiers":{"NV12":["0x0","0x700000000000004"]}"#, with: "")
    #expect(try JSONDecoder().decode(DisplayPlaneInfo.self, from: Data(older.utf8)).modifiers == nil, "\(older)")
}

/// struct drm_format_modifier_blob, as the kernel lays it out: `formats` codes, then per entry a
/// 64-bit mask of the formats from `offset` and the modifier.
private func inFormatsBlob(formats: [FourCC], entries: [(mask: UInt64, offset: UInt32, modifier: UInt64)]) -> [UInt8] {
    func le(_ value: UInt64, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    let formatsAt = 24, modifiersAt = 24 + 4 * formats.count + 4   // padded to 8, as the kernel aligns it
    var blob = le(1, 4) + le(0, 4) + le(UInt64(formats.count), 4) + le(UInt64(formatsAt), 4)
        + le(UInt64(entries.count), 4) + le(UInt64(modifiersAt), 4)
    blob += formats.flatMap { le(UInt64($0.rawValue), 4) } + [0, 0, 0, 0]
    for entry in entries { blob += le(entry.mask, 8) + le(UInt64(entry.offset), 4) + le(0, 4) + le(entry.modifier, 8) }
    return blob
}

@Test func aPlanesFortiethFormatGetsItsOwnModifiersFromTheBlob() throws {
    // 40 formats (vc4 lists about 35): LINEAR for all; SAND128 for formats 31, 33 and 39; a
    // tiled layout for the first three. libdrm 2.4.114's iterator tests its mask with a 32-bit
    // shift: it gave format 32 format 0's modifiers and format 31 every one from 31 on.
    let formats = (0..<40).map { FourCC(rawValue: 0x3030_3041 + UInt32($0)) }
    let tiled = FormatModifier.broadcomSAND(columnBytes: 32) - 2 + 1   // Broadcom's T-tiled, code 1
    let blob = inFormatsBlob(formats: formats, entries: [
        (mask: (UInt64(1) << 40) - 1, offset: 0, modifier: FormatModifier.linear),
        (mask: 0b111, offset: 0, modifier: tiled),
        (mask: 1 << 31, offset: 0, modifier: sand128),
        (mask: 0b1 | 1 << 7, offset: 32, modifier: sand128),
    ])
    let pairs = try #require(FormatModifier.inFormats(blob))
    #expect(pairs.count == 40)
    #expect(pairs[formats[0]] == [FormatModifier.linear, tiled])
    #expect(pairs[formats[3]] == [FormatModifier.linear])
    #expect(pairs[formats[31]] == [FormatModifier.linear, sand128])
    #expect(pairs[formats[32]] == [FormatModifier.linear, sand128])
    #expect(pairs[formats[34]] == [FormatModifier.linear])
    #expect(pairs[formats[39]] == [FormatModifier.linear, sand128])
    #expect(FormatModifier.name(tiled) == "Broadcom 0x1")
}

@Test func aMalformedBlobIsNoList() {
    let formats: [FourCC] = [.nv12, .xrgb8888]
    let good = inFormatsBlob(formats: formats, entries: [(mask: 0b11, offset: 0, modifier: FormatModifier.linear)])
    #expect(FormatModifier.inFormats(good) == [.nv12: [FormatModifier.linear], .xrgb8888: [FormatModifier.linear]])
    #expect(FormatModifier.inFormats([]) == nil)
    #expect(FormatModifier.inFormats(Array(good.prefix(20))) == nil, "a header cut short")
    #expect(FormatModifier.inFormats(Array(good.dropLast(4))) == nil, "an entry cut short")
    var pastTheEnd = good
    pastTheEnd[20] = 0xff   // the modifiers' offset past the blob
    #expect(FormatModifier.inFormats(pastTheEnd) == nil)
    // Listing nothing: no list (linear only), not "nothing scans out".
    #expect(FormatModifier.inFormats(inFormatsBlob(formats: formats, entries: [])) == nil)
    // A mask bit past the formats is ignored.
    #expect(FormatModifier.inFormats(inFormatsBlob(formats: formats, entries: [(mask: 0b1101, offset: 0, modifier: sand128)]))
            == [.nv12: [sand128]])
}
