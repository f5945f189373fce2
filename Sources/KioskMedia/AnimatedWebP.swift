import Foundation
import KioskCore

/// Animated WebP: FFmpeg decodes WebP stills only (its animated WebP decoder came with 9.0;
/// Debian ships 5.1 and 7.1), so an animation's first chunk is no picture to it. Told by its
/// header (RIFF, WEBP, a VP8X chunk whose flags have the animation bit), a playlist plays it
/// through libwebpdemux (`WebPAnimationReader`), and what reads it through FFmpeg alone says
/// what the file is and what to do.
public enum AnimatedWebP {
    /// Whether the file at `path` begins as an animated WebP (false for anything unreadable, a
    /// URL, and a FIFO or device: read without blocking, and not consumed).
    public static func isAnimated(path: String) -> Bool {
        isAnimated(header: LocalFileSystem().bytes(atPath: path, offset: 0, count: 21))
    }

    /// The first 21 bytes: "RIFF", a size, "WEBP", "VP8X", a chunk size, then the flags (0x02:
    /// animation).
    static func isAnimated(header bytes: [UInt8]) -> Bool { StillSignature.isAnimatedWebP(bytes) }

    /// Said where FFmpeg alone reads the file (`kiosk compose`, a layer's picture): a playlist
    /// plays it through libwebpdemux (`WebPAnimationReader`). FFmpeg itself cannot convert it
    /// either: the tools named can.
    static let reason = "an animated WebP, which FFmpeg cannot decode (WebP stills only; animations from FFmpeg 9.0): a playlist plays it, here convert it to a video or a GIF with a tool that reads it (ImageMagick, libwebp's anim_dump)"
}
