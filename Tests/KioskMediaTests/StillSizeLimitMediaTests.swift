import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// Huge stills are refused in one line naming their size and the limit, before any decoding;
/// a 48 MP JPEG plays when a screen lets it decode at a reduced size.
@Suite struct StillSizeLimitMediaTests {
    @Test func pngOver16MegapixelsIsRefusedInOneLine() throws {
        let path = try MediaFixtures.clip("still-20mp.png", ["-f", "lavfi", "-i", "color=c=0x336699:s=5472x3648:d=1",
                                                             "-frames:v", "1", "-pix_fmt", "rgb24"])
        let error = Self.mediaError { try VideoFrameReader(asset: try Asset(source: path)) }
        #expect(error?.reason == "picture is 5472x3648 (20.0 MP); kiosk shows PNG and WebP stills up to 16 MP")
    }

    @Test func largeJpegNeedsAScreenToDecodeSmaller() throws {
        let path = try MediaFixtures.clip("still-48mp.jpg", ["-f", "lavfi", "-i", "color=c=0x336699:s=8000x6000:d=1",
                                                             "-frames:v", "1", "-pix_fmt", "yuvj420p"])
        // Whole, it would take 68 MiB: refused.
        let error = Self.mediaError { try VideoFrameReader(asset: try Asset(source: path)) }
        #expect(error?.reason.contains("68 MiB decoded") == true)
        // For a 1080p screen it decodes at 1/2: 4000x3000.
        let reader = try VideoFrameReader(asset: try Asset(source: path), stillScreen: PixelSize(width: 1920, height: 1080))
        #expect(reader.lowres == 1)
        let frame = try #require(try reader.nextFrame())
        #expect(frame.size == PixelSize(width: 4000, height: 3000))
    }

    /// The MediaError `body` throws; an issue when it throws another error or none. Not
    /// `let error = #expect(throws:)`: that returns the error from Swift 6.1 on, and trixie's
    /// Swift 6.0 (deploy/arm64) returns nothing.
    static func mediaError<T>(_ body: () throws -> T) -> MediaError? {
        do {
            _ = try body()
            Issue.record("no MediaError thrown")
        } catch let error as MediaError {
            return error
        } catch {
            Issue.record("expected a MediaError, got \(error)")
        }
        return nil
    }
}
