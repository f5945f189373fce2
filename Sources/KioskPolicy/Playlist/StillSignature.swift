/// What a file's own bytes say it is, for the two questions a name cannot always answer:
/// whether a file with no media extension (`poster`, `asset_1234.dat`, a CMS's download) is a
/// still picture, and whether a GIF is one picture (a poster, shown for `image_duration`) or an
/// animation (played as a video). Pure: the caller reads the bytes (`PlaylistFileSystem`).
public enum StillSignature {
    /// The kinds of picture file recognised by their first bytes.
    public enum Kind: String, Sendable, Equatable {
        case jpeg, png, bmp, tiff, webp, heif, jpegXL, gif
    }

    /// Bytes enough for every signature below (a WebP's VP8X flags are byte 20).
    public static let leadingByteCount = 32

    /// The picture kind `bytes` (a file's start) begin with, nil for anything else (a video
    /// container, text, nothing).
    public static func kind(of bytes: [UInt8]) -> Kind? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("II".utf8) + [0x2A, 0x00]) || starts(Array("MM".utf8) + [0x00, 0x2A]) { return .tiff }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        // JPEG XL: a bare codestream, or the ISO BMFF container's signature box.
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) { return .jpegXL }
        if isHeif(bytes) { return .heif }
        // BMP: "BM", then a file size and reserved zeros; the header size says a known DIB header.
        if starts(Array("BM".utf8)), bytes.count >= 16, bytes[6] == 0, bytes[7] == 0, bytes[8] == 0, bytes[9] == 0,
           [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14])), bytes[15] == 0 { return .bmp }
        return nil
    }

    /// Whether a WebP's first 21 bytes say an animation: "RIFF", a size, "WEBP", a "VP8X"
    /// chunk and its size, then its flags with the animation bit (0x02).
    public static func isAnimatedWebP(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 21, kind(of: bytes) == .webp else { return false }
        return bytes[12..<16].elementsEqual("VP8X".utf8) && bytes[20] & 0x02 != 0
    }

    /// Whether `bytes` are a HEIF still's: an ftyp box whose major brand is a HEIF image brand
    /// (heic, heix, mif1, avif...), not a sequence's (msf1, hevc, avis) that FFmpeg plays.
    public static func isHeif(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        return heifImageBrands.contains(String(decoding: bytes[8..<12], as: UTF8.self))
    }

    /// ISO/IEC 23008-12's and AVIF's brands of files whose primary item is a picture.
    public static let heifImageBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1", "mif2", "avif"]

    /// How much of a GIF `pictureCount` reads at most: a one-picture GIF larger than this is
    /// taken for an animation (played as a video, as every GIF was before). A poster or logo
    /// GIF is well under it; the expander reads it at each expansion (start, reload, a
    /// folder's change, a stick).
    public static let gifReadLimit = 4 << 20

    /// How many pictures a GIF holds, counted up to 2 (2 means "an animation"), by walking its
    /// blocks (GIF89a: header, screen descriptor and colour table, then extensions and image
    /// descriptors with their data sub-blocks, to the trailer). `read(offset, count)` gives the
    /// file's bytes there (fewer at its end, none past it). nil when the bytes are not a GIF, or
    /// end or break before the trailer with fewer than 2 pictures: a GIF still being copied
    /// may be an animation cut after its first picture, so it stays a video as before.
    public static func gifPictureCount(read: (_ offset: Int, _ count: Int) -> [UInt8]) -> Int? {
        withoutActuallyEscaping(read) { read in
            var reader = ChunkReader(read: read, limit: gifReadLimit)
            let counted = countGifPictures(&reader)
            return reader.passedLimit ? 2 : counted
        }
    }

    private static func countGifPictures(_ reader: inout ChunkReader) -> Int? {
        guard let header = reader.bytes(13), kind(of: header) == .gif else { return nil }
        if header[10] & 0x80 != 0 { reader.skip(3 << ((Int(header[10]) & 7) + 1)) }   // global colour table
        var pictures = 0
        while let introducer = reader.byte() {
            switch introducer {
            case 0x21:   // an extension: its label, then data sub-blocks
                guard reader.byte() != nil, reader.skipSubBlocks() else { return nil }
            case 0x2C:   // an image descriptor: 9 bytes, a local colour table, the LZW code size, data sub-blocks
                guard let descriptor = reader.bytes(9) else { return nil }
                pictures += 1
                if pictures >= 2 { return pictures }
                if descriptor[8] & 0x80 != 0 { reader.skip(3 << ((Int(descriptor[8]) & 7) + 1)) }
                guard reader.byte() != nil, reader.skipSubBlocks() else { return nil }
            case 0x3B:   // the trailer
                return pictures > 0 ? pictures : nil
            default:     // bytes that are no block: not known
                return nil
            }
        }
        return nil
    }
}

/// Sequential reads over `read(offset, count)` in chunks, so a GIF's walk asks for 64 KB at a
/// time rather than a byte per call (sub-blocks are at most 255 bytes).
private struct ChunkReader {
    let read: (Int, Int) -> [UInt8]
    /// Bytes past this offset are not read: `byte()` answers nil and `passedLimit` is set.
    let limit: Int
    private(set) var passedLimit = false
    private(set) var offset = 0
    private var chunk: [UInt8] = []
    private var chunkStart = 0
    private static let chunkSize = 256 << 10

    init(read: @escaping (Int, Int) -> [UInt8], limit: Int) {
        self.read = read
        self.limit = limit
    }

    mutating func byte() -> UInt8? {
        guard offset < limit else { passedLimit = true; return nil }
        if offset < chunkStart || offset >= chunkStart + chunk.count {
            chunkStart = offset
            chunk = read(offset, Self.chunkSize)
            guard !chunk.isEmpty else { return nil }
        }
        defer { offset += 1 }
        return chunk[offset - chunkStart]
    }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            guard let next = byte() else { return nil }
            out.append(next)
        }
        return out
    }

    mutating func skip(_ count: Int) { offset += count }

    /// Skips data sub-blocks (a length byte, that many bytes) to their 0 terminator; false when
    /// the file ends first.
    mutating func skipSubBlocks() -> Bool {
        while let length = byte() {
            if length == 0 { return true }
            skip(Int(length))
        }
        return false
    }
}
