/// Reads the Orientation tag (0x0112) out of EXIF data kiosk gets as raw bytes: a PNG's eXIf
/// chunk, which FFmpeg 5.1's PNG decoder drops. The bytes are the file's, so untrusted: every
/// offset is checked against what was read, nothing is read past it, and anything malformed
/// is `.malformed` with a short reason (the caller logs it once at debug and shows the picture
/// as stored).
public enum ExifOrientationReader {
    public enum Lookup: Equatable, Sendable {
        case found(PictureOrientation)
        /// Well-formed EXIF without an Orientation tag.
        case absent
        case malformed(String)
    }

    static let orientationTag: UInt16 = 0x0112
    static let typeShort: UInt16 = 3

    /// The orientation in TIFF-structured EXIF (`II*\0` or `MM\0*` first; an `Exif\0\0` prefix,
    /// as in a JPEG's APP1, is skipped). Only IFD0 is looked at: that is where the tag lives.
    public static func orientation(inExif bytes: [UInt8]) -> Lookup {
        var data = ArraySlice(bytes)
        if data.starts(with: Array("Exif\0\0".utf8)) { data = data.dropFirst(6) }
        let tiff = Array(data)
        guard tiff.count >= 8 else { return .malformed("EXIF shorter than its header") }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return .malformed("EXIF without a byte-order mark")
        }
        let reader = ByteReader(bytes: tiff, bigEndian: bigEndian)
        guard reader.uint16(at: 2) == 42 else { return .malformed("EXIF without TIFF's 42") }
        guard let ifdOffset = reader.uint32(at: 4).map(Int.init), let entryCount = reader.uint16(at: ifdOffset) else {
            return .malformed("EXIF's first directory lies past its end")
        }
        for index in 0..<Int(entryCount) {
            let entry = ifdOffset + 2 + index * 12
            guard let tag = reader.uint16(at: entry), let type = reader.uint16(at: entry + 2),
                  let count = reader.uint32(at: entry + 4) else {
                return .malformed("EXIF directory of \(entryCount) entries cut short")
            }
            guard tag == orientationTag else { continue }
            // A SHORT with one value sits in the first two bytes of the 4-byte value field.
            guard type == typeShort, count == 1, let value = reader.uint16(at: entry + 8) else {
                return .malformed("EXIF Orientation is not one SHORT")
            }
            guard let orientation = PictureOrientation(exifValue: Int(value)) else {
                return .malformed("EXIF Orientation \(value) is not 1-8")
            }
            return .found(orientation)
        }
        return .absent
    }

    /// Bounds-checked integer reads in the EXIF's own byte order.
    struct ByteReader {
        let bytes: [UInt8]
        let bigEndian: Bool

        func uint16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset <= bytes.count - 2 else { return nil }
            let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }

        func uint32(at offset: Int) -> UInt32? {
            guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
            return bigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
        }
    }
}

/// Finds a PNG's eXIf chunk by walking its chunks from the signature, reading through `read`
/// (offset, count -> at most count bytes; fewer at the end of the file). Chunks may come in any
/// order (the PNG extensions want eXIf before IDAT; older writers put it after), so the walk
/// goes to IEND, skipping each chunk's data without reading it.
public enum PNGExifLocator {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// IFD0 sits at the chunk's start; a camera's thumbnail after it is not needed.
    public static let maximumExifBytes = 64 * 1024
    /// A 100 MB PNG in libpng's 8 KiB IDAT chunks has ~12,000: this only stops a runaway walk.
    public static let maximumChunks = 1_000_000

    public enum Result: Equatable, Sendable {
        /// The chunk's data (at most `maximumExifBytes` of it).
        case exif([UInt8])
        case none
        case malformed(String)
    }

    public static func findExif(read: (_ offset: Int, _ count: Int) -> [UInt8]) -> Result {
        guard read(0, 8) == signature else { return .malformed("not a PNG signature") }
        var offset = 8
        for _ in 0..<maximumChunks {
            let header = read(offset, 8)
            // A file cut short before IEND: whatever came before was all there is.
            guard header.count == 8 else { return .none }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            // PNG caps a chunk at 2^31 - 1 bytes.
            guard length <= Int(Int32.max) else { return .malformed("PNG chunk \(type) claims \(length) bytes") }
            switch type {
            case "eXIf":
                let data = read(offset + 8, min(length, maximumExifBytes))
                guard data.count == min(length, maximumExifBytes) else { return .malformed("PNG eXIf chunk cut short") }
                return .exif(data)
            case "IEND":
                return .none
            default:
                offset += 12 + length   // length, type, data, CRC
            }
        }
        return .malformed("PNG of more than \(maximumChunks) chunks")
    }
}
