import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// EXIF (TIFF) bytes with one IFD0 entry per (tag, type, count, value), in either byte order.
private func exif(bigEndian: Bool, entries: [(UInt16, UInt16, UInt32, UInt16)], prefix: [UInt8] = []) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
    var bytes = prefix + (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8) + u16(UInt16(entries.count))
    for (tag, type, count, value) in entries { bytes += u16(tag) + u16(type) + u32(count) + u16(value) + [0, 0] }
    return bytes + u32(0)
}

/// A PNG's chunk sequence (CRCs are not checked by the locator, so zeros do).
private func png(_ chunks: [(String, [UInt8])]) -> [UInt8] {
    var bytes = PNGExifLocator.signature
    for (type, data) in chunks {
        let n = UInt32(data.count)
        bytes += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + data + [0, 0, 0, 0]
    }
    return bytes
}

private func reading(_ bytes: [UInt8]) -> (Int, Int) -> [UInt8] {
    { offset, count in
        guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + count)])
    }
}

@Suite struct ExifOrientationReaderTests {
    @Test(arguments: 1...8)
    func orientationIsFoundInBothByteOrders(value: Int) {
        for bigEndian in [true, false] {
            let bytes = exif(bigEndian: bigEndian, entries: [(0x011A, 5, 1, 0), (0x0112, 3, 1, UInt16(value)), (0x0128, 3, 1, 2)])
            #expect(ExifOrientationReader.orientation(inExif: bytes) == .found(PictureOrientation(exifValue: value)!))
        }
    }

    @Test func jpegStylePrefixIsSkipped() {
        let bytes = exif(bigEndian: false, entries: [(0x0112, 3, 1, 6)], prefix: Array("Exif\0\0".utf8))
        #expect(ExifOrientationReader.orientation(inExif: bytes) == .found(.rotate90))
    }

    @Test func noOrientationTagIsAbsent() {
        #expect(ExifOrientationReader.orientation(inExif: exif(bigEndian: true, entries: [(0x0128, 3, 1, 2)])) == .absent)
        #expect(ExifOrientationReader.orientation(inExif: exif(bigEndian: true, entries: [])) == .absent)
    }

    /// Untrusted bytes: every malformation is a reason, never a crash or a read past the end.
    @Test func malformedExifIsSaidNotCrashedOn() {
        let good = exif(bigEndian: true, entries: [(0x0100, 3, 1, 1), (0x0112, 3, 1, 6)])
        var cases: [[UInt8]] = [[], Array("MM".utf8), Array("XX\0*\0\0\0\u{8}".utf8),
                                exif(bigEndian: true, entries: [(0x0112, 3, 1, 0)]),
                                exif(bigEndian: true, entries: [(0x0112, 3, 1, 9)]),
                                exif(bigEndian: true, entries: [(0x0112, 4, 1, 6)]),
                                exif(bigEndian: true, entries: [(0x0112, 3, 2, 6)])]
        // IFD0 offset past the end.
        var farOffset = good; farOffset[4] = 0x7F
        cases.append(farOffset)
        // Every prefix of a good one cut before the Orientation entry's value (header 8,
        // count 2, one entry 12, then the tag's value 8 bytes into its entry).
        cases += (0..<(8 + 2 + 12 + 10)).map { Array(good.prefix($0)) }
        for bytes in cases {
            let result = ExifOrientationReader.orientation(inExif: bytes)
            if case .found = result { Issue.record("found an orientation in malformed \(bytes)") }
        }
        // An entry count larger than the bytes hold: the entries that are there still count.
        var hugeCount = good; hugeCount[8] = 0xFF; hugeCount[9] = 0xFF
        #expect(ExifOrientationReader.orientation(inExif: hugeCount) == .found(.rotate90))
        var hugeCountNoTag = exif(bigEndian: true, entries: [(0x0100, 3, 1, 1)]); hugeCountNoTag[8] = 0xFF
        #expect(ExifOrientationReader.orientation(inExif: hugeCountNoTag) == .malformed("EXIF directory of 65281 entries cut short"))
    }

    @Test func pngExifChunkIsFoundBeforeOrAfterTheImageData() {
        let tiff = exif(bigEndian: true, entries: [(0x0112, 3, 1, 8)])
        for chunks in [[("IHDR", [UInt8](repeating: 0, count: 13)), ("eXIf", tiff), ("IDAT", [1, 2, 3]), ("IEND", [])],
                       [("IHDR", [UInt8](repeating: 0, count: 13)), ("IDAT", [1, 2, 3]), ("eXIf", tiff), ("IEND", [])]] {
            #expect(PNGExifLocator.findExif(read: reading(png(chunks))) == .exif(tiff))
        }
        #expect(PNGExifLocator.findExif(read: reading(png([("IHDR", [0]), ("IEND", []), ("eXIf", tiff)]))) == .none)
    }

    @Test func malformedPngIsSaidNotCrashedOn() {
        let tiff = exif(bigEndian: true, entries: [(0x0112, 3, 1, 8)])
        let good = png([("IHDR", [UInt8](repeating: 0, count: 13)), ("eXIf", tiff), ("IEND", [])])
        #expect(PNGExifLocator.findExif(read: reading(Array("GIF89a".utf8))) == .malformed("not a PNG signature"))
        // An eXIf chunk claiming more than the file holds, and one claiming 4 GiB.
        var long = good; long[33 + 3] = 0xF0
        if case .exif = PNGExifLocator.findExif(read: reading(long)) { Issue.record("read a chunk past the file's end") }
        var huge = good; huge[33] = 0xFF
        if case .exif = PNGExifLocator.findExif(read: reading(huge)) { Issue.record("took a 4 GiB chunk") }
        // Cut anywhere: never more than the file, never a crash.
        for cut in 0..<good.count {
            if case .exif(let data) = PNGExifLocator.findExif(read: reading(Array(good.prefix(cut)))) {
                #expect(data == tiff)
            }
        }
    }
}

/// Random damage to good EXIF and PNG bytes (a fixed seed: the same cases every run): the
/// readers answer something for each and never trap.
@Suite struct ExifOrientationReaderDamageTests {
    @Test func randomlyDamagedBytesNeverTrap() {
        var random = SeededGenerator(state: 22)
        let tiff = exif(bigEndian: false, entries: [(0x0100, 3, 1, 64), (0x0112, 3, 1, 7), (0x8769, 4, 1, 60)])
        let file = png([("IHDR", [UInt8](repeating: 0, count: 13)), ("eXIf", tiff), ("IDAT", [1, 2, 3]), ("IEND", [])])
        var found = 0
        for _ in 0..<3000 {
            var damaged = file
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if case .exif(let bytes) = PNGExifLocator.findExif(read: reading(damaged)) {
                if case .found = ExifOrientationReader.orientation(inExif: bytes) { found += 1 }
            }
        }
        // Most damage misses the few bytes that matter: the tag is still found then.
        #expect(found > 0)
    }
}
