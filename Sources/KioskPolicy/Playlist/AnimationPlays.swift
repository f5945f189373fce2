/// How many times an animated picture's own file says it plays, as browsers read it: a GIF's
/// NETSCAPE2.0 (or ANIMEXTS1.0) loop count is the repeats after the first play (0: forever;
/// none: it plays once), an APNG's `acTL` num_plays and a WebP's loop count the plays (0:
/// forever). An animation given a `duration` loops until then (`AnimationLoop`) at most this
/// many times, then holds its last frame, as a browser shows a "play once" GIF. Pure: the demux
/// thread hands in the file's first bytes.
public enum AnimationPlays: Sendable, Equatable {
    case forever
    case times(Int)

    /// From a GIF's first bytes (its header to its first picture; the 256 KB read holds it). A
    /// Netscape block after the first picture (rare; browsers find it there) is not looked for.
    /// What cannot be read as a GIF is `forever`: the loop the duration asked for, as before.
    public static func ofGIF(_ bytes: [UInt8]) -> AnimationPlays {
        guard bytes.count >= 13, bytes.starts(with: Array("GIF8".utf8)) else { return .forever }
        var at = 13
        let packed = bytes[10]
        if packed & 0x80 != 0 { at += 3 << (Int(packed & 0x07) + 1) }   // the global colour table
        while at < bytes.count {
            switch bytes[at] {
            case 0x21:   // an extension: its label, then sub-blocks to a 0
                guard at + 2 < bytes.count else { return .forever }
                let label = bytes[at + 1]
                var block = at + 2
                if label == 0xFF, let count = loopCount(bytes, applicationAt: block) {
                    return count == 0 ? .forever : .times(count + 1)
                }
                while block < bytes.count, bytes[block] != 0 { block += Int(bytes[block]) + 1 }
                at = block + 1
            case 0x2C, 0x3B:   // the first picture, or the end: no loop count came before it
                return .times(1)
            default:
                return .forever
            }
        }
        return .forever
    }

    /// The loop count of an application extension whose first sub-block starts at `at`, when
    /// it is Netscape's looping one.
    private static func loopCount(_ bytes: [UInt8], applicationAt at: Int) -> Int? {
        guard at + 16 < bytes.count, bytes[at] == 11 else { return nil }
        let identifier = String(decoding: bytes[(at + 1)...(at + 11)], as: UTF8.self)
        guard identifier == "NETSCAPE2.0" || identifier == "ANIMEXTS1.0", bytes[at + 12] == 3, bytes[at + 13] == 1 else { return nil }
        return Int(bytes[at + 14]) | Int(bytes[at + 15]) << 8
    }

    /// From a PNG's first bytes: its `acTL` chunk's num_plays (before its first `IDAT`).
    public static func ofPNG(_ bytes: [UInt8]) -> AnimationPlays {
        guard bytes.count >= 8, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return .forever }
        var at = 8
        while at + 8 <= bytes.count {
            let length = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "acTL" {
                guard at + 16 <= bytes.count else { return .forever }
                let plays = bytes[(at + 12)..<(at + 16)].reduce(0) { $0 << 8 | Int($1) }
                return plays == 0 ? .forever : .times(plays)
            }
            if type == "IDAT" || type == "IEND" { return .forever }
            at += 12 + length
        }
        return .forever
    }

    /// A WebP's loop count, as libwebpdemux reads it.
    public static func ofWebP(loopCount: Int) -> AnimationPlays {
        loopCount <= 0 ? .forever : .times(loopCount)
    }
}
