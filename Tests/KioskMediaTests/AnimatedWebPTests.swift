import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// An animated WebP, which FFmpeg 5.1 and 7.1 cannot decode, is refused in one line that says
/// what it is and what to do, not as a stream "with no picture size"; a WebP still plays.
@Suite struct AnimatedWebPTests {
    @Test func anAnimatedWebPIsNamedAsOne() throws {
        let path = try MediaFixtures.clip("animated.webp", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=0.5",
                                                            "-c:v", "libwebp_anim", "-loop", "0"])
        #expect(AnimatedWebP.isAnimated(path: path))
        let error = StillSizeLimitMediaTests.mediaError { try VideoFrameReader(asset: try Asset(source: path)) }
        #expect(error?.reason == AnimatedWebP.reason)
    }

    @Test func aWebPStillIsNoAnimationAndPlays() throws {
        let path = try MediaFixtures.clip("still.webp", ["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1",
                                                         "-c:v", "libwebp"])
        #expect(!AnimatedWebP.isAnimated(path: path))
        let reader = try VideoFrameReader(asset: try Asset(source: path))
        #expect(try reader.nextFrame() != nil)
    }

    @Test func theHeaderIsReadByItsFields() {
        var header = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array("VP8X".utf8) + [10, 0, 0, 0, 0x02]
        #expect(AnimatedWebP.isAnimated(header: header))
        header[20] = 0x10   // alpha only
        #expect(!AnimatedWebP.isAnimated(header: header))
        #expect(!AnimatedWebP.isAnimated(header: Array(header.prefix(20))))
        #expect(!AnimatedWebP.isAnimated(path: "/nonexistent/file.webp"))
    }
}
