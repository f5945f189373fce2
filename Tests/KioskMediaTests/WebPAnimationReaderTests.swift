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
        #expect(reader.length == MediaTime(value: 600, timescale: 1000))   // from the frame headers, before any decoding
        #expect(reader.info.bestVideo?.frameRate == Rational(10, 1))
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
                                                 + [10, 0, 0, 0, 0x02, 0, 0, 0, 15, 0, 0, 15, 0, 0]   // a 16x16 canvas
                                                 + [UInt8](repeating: 0x5A, count: 40))
        #expect(AnimatedWebP.isAnimated(path: garbage))
        let error = StillSizeLimitMediaTests.mediaError { try WebPAnimationReader(path: garbage) }
        #expect(error?.reason.contains("damaged animated WebP") == true, "\(String(describing: error))")
        // A canvas past 16 MP is refused from its header, before libwebp allocates it (and
        // without freeing anything twice).
        var huge = Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0x02, 0, 0, 0]
        huge += [0x87, 0x13, 0x00, 0x9F, 0x0F, 0x00] + [UInt8](repeating: 0, count: 20)   // 5000x4000
        let big = try MediaFixtures.file("reader-huge.webp", bytes: huge)
        let refused = StillSizeLimitMediaTests.mediaError { try WebPAnimationReader(path: big) }
        #expect(refused?.reason.contains("5000x4000") == true, "\(String(describing: refused))")
        #expect(WebPAnimationReader.canvasSize(header: huge) == PixelSize(width: 5000, height: 4000))
    }

    /// Each frame's played time from its ANMF header: a 0 ms frame plays 100 ms, as browsers do.
    @Test func frameTimesAreReadFromTheFrameHeaders() {
        func anmf(_ milliseconds: Int) -> [UInt8] {
            let payload: [UInt8] = [0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0,
                                    UInt8(milliseconds & 0xFF), UInt8(milliseconds >> 8 & 0xFF), UInt8(milliseconds >> 16), 0]
            return Array("ANMF".utf8) + [UInt8(payload.count), 0, 0, 0] + payload
        }
        var file = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array("ANIM".utf8) + [6, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            + anmf(40) + anmf(0) + anmf(3000) + anmf(70_000)
        let riff = file.count - 8
        file[4] = UInt8(riff & 0xFF)
        file[5] = UInt8(riff >> 8)
        #expect(file.withUnsafeBytes { WebPAnimationReader.frameTimes($0) } == [40, 100, 3000, 70_000])
        // Bytes after the RIFF size are not the animation's, whatever they look like.
        file += anmf(500)
        #expect(file.withUnsafeBytes { WebPAnimationReader.frameTimes($0) } == [40, 100, 3000, 70_000])
    }
}
