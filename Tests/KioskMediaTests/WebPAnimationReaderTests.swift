import CFFmpeg
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// An animated WebP is decoded by libwebpdemux (`WebPAnimationReader`): every frame, in order,
/// the whole canvas, each with its own time; rewound, it starts again from the first.
@Suite struct WebPAnimationReaderTests {
    static func animation() throws -> String {
        try MediaFixtures.clip("reader-animated.webp", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=0.6",
                                                        "-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0"])
    }

    private func pixels(_ frame: DecodedFrame) -> [UInt8] {
        let picture = frame.frame.pointee
        let row = Int(picture.width) * 4
        return (0..<Int(picture.height)).flatMap { y in Array(UnsafeBufferPointer(start: picture.data.0! + y * Int(picture.linesize.0), count: row)) }
    }

    @Test func everyFrameComesOutWithItsOwnTime() throws {
        let reader = try WebPAnimationReader(path: try Self.animation())
        #expect(reader.size == PixelSize(width: 160, height: 120))
        #expect(reader.frameCount == 6)
        var frames: [(frame: DecodedFrame, end: MediaTime)] = []
        while let next = try reader.next() { frames.append(next) }
        #expect(frames.count == 6)
        #expect(frames.map { Int(($0.frame.pts.seconds * 1000).rounded()) } == [0, 100, 200, 300, 400, 500])
        #expect(frames.last.map { Int(($0.end.seconds * 1000).rounded()) } == 600)
        #expect(frames.allSatisfy { $0.frame.pixelFormatName == "rgba" && $0.frame.size == PixelSize(width: 160, height: 120) })
        // A moving pattern: each frame's picture is its own.
        let pictures = frames.map { pixels($0.frame) }
        #expect(Set(pictures.map { $0.hashValue }).count == 6)
        reader.rewind()
        let again = try #require(try reader.next())
        #expect(again.frame.pts == .zero && pixels(again.frame) == pictures[0])
    }

    @Test func aStillOrDamagedFileIsOneLine() throws {
        let still = try MediaFixtures.clip("reader-still.webp", ["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1",
                                                                 "-c:v", "libwebp"])
        // A still goes to FFmpeg (AnimatedWebP.isAnimated says no); libwebpdemux reads it as one frame.
        #expect(!AnimatedWebP.isAnimated(path: still))
        let garbage = try MediaFixtures.file("reader-garbage.webp", bytes: Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPVP8X".utf8)
                                                 + [10, 0, 0, 0, 0x02] + [UInt8](repeating: 0x5A, count: 40))
        #expect(AnimatedWebP.isAnimated(path: garbage))
        let error = StillSizeLimitMediaTests.mediaError { try WebPAnimationReader(path: garbage) }
        #expect(error?.reason.contains("damaged animated WebP") == true, "\(String(describing: error))")
    }
}
