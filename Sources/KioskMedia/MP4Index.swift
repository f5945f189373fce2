import Foundation

/// Whether a file is an MP4 or MOV (ISO base media) whose index, the `moov` box, is missing:
/// written last unless the file was made for streaming, it is what a copy, an upload or a
/// recording cut short lacks. FFmpeg then says only "invalid data", which reads as "not a video"
/// to the person holding what is plainly an MP4. Read from the top-level boxes' headers (8 or 16
/// bytes each), not from FFmpeg's log.
enum MP4Index {
    /// True when the file starts with an `ftyp` box (or one of the boxes an older QuickTime file
    /// starts with) and its top-level boxes end, or are cut off, without a `moov`; false for
    /// anything else, a readable MP4 included. Sizes are the file's, untrusted: never added past
    /// its end.
    static func isMissing(path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let end = try? file.seekToEnd() else { return false }
        var offset: UInt64 = 0
        var first = true
        // A bound on the walk: real files have a handful of top-level boxes.
        for _ in 0..<10_000 {
            guard offset + 8 <= end, (try? file.seek(toOffset: offset)) != nil,
                  let header = try? file.read(upToCount: 16), header.count >= 8 else { return !first }
            let bytes = [UInt8](header)
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if first && !["ftyp", "wide", "free", "skip", "mdat"].contains(type) { return false }
            if type == "moov" { return false }
            first = false
            var size = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if size == 1 {   // a 64-bit size follows the type
                guard bytes.count >= 16 else { return true }
                size = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if size == 0 {   // this box runs to the end of the file
                return true
            }
            guard size >= 8 else { return false }   // not boxes: damaged, not cut short
            guard size <= end - offset else { return true }   // runs past the end: cut off
            offset += size
        }
        return false
    }
}
