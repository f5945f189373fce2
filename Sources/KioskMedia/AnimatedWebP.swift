import Foundation

/// Animated WebP: FFmpeg decodes WebP stills only (its animated WebP decoder came with 9.0;
/// Debian ships 5.1 and 7.1), so an animation's first chunk is no picture to it and the file
/// fails as one without a picture size. Told by its header (RIFF, WEBP, a VP8X chunk whose
/// flags have the animation bit), that failure says what the file is and what to do.
enum AnimatedWebP {
    /// Whether the file at `path` begins as an animated WebP (false for anything unreadable).
    static func isAnimated(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 21) else { return false }
        return isAnimated(header: [UInt8](head))
    }

    /// The first 21 bytes: "RIFF", a size, "WEBP", "VP8X", a chunk size, then the flags (0x02:
    /// animation).
    static func isAnimated(header bytes: [UInt8]) -> Bool {
        guard bytes.count >= 21 else { return false }
        return Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WEBP".utf8)
            && Array(bytes[12..<16]) == Array("VP8X".utf8) && bytes[20] & 0x02 != 0
    }

    /// FFmpeg itself cannot convert it either: the tools named can.
    static let reason = "an animated WebP, which this FFmpeg cannot decode (WebP stills only; animations from FFmpeg 9.0): convert it to a video or a GIF with a tool that reads it (ImageMagick, libwebp's anim_dump)"
}
