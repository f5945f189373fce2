import Testing
import KioskTestSupport

/// Colours of `kiosk snapshot` against ffmpeg's own conversion of the same clip: the YUV-to-RGB
/// matrix and range come from the frame's tags (BT.601 and BT.709 colour bars differ by up to
/// ~30 levels per channel, far beyond compression noise at -qp 0).
@Suite struct SnapshotColorTests {
    /// smptehdbars tagged BT.709 (the source makes BT.709 YUV; the tags go into the stream).
    /// setparams tags the source's frames too: ffmpeg 7.1 converts untagged frames (taken as
    /// BT.601) to the output's -colorspace, which would turn the bars into other YUV values.
    let tagged709 = try! MediaFixtures.clip("bars-709.mp4", [
        "-f", "lavfi", "-i", "smptehdbars=size=640x360:rate=25:duration=1",
        "-vf", "setparams=colorspace=bt709:color_primaries=bt709:color_trc=bt709:range=tv", "-pix_fmt", "yuv420p",
        "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
        "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0"])
    /// The same BT.709 bars in HD with the colour tags stripped (matrix "unspecified").
    let untaggedHD = try! MediaFixtures.clip("bars-hd-untagged.mp4", [
        "-f", "lavfi", "-i", "smptehdbars=size=1280x720:rate=25:duration=0.2", "-pix_fmt", "yuv420p",
        "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0",
        "-bsf:v", "h264_metadata=colour_primaries=2:transfer_characteristics=2:matrix_coefficients=2"])

    /// Centres of the seven top bars and the gray/white patches beside them, on a 640x360 picture.
    static let samples: [(Int, Int)] = (0..<14).map { (640 * $0 / 14 + 23, 100) } + [(120, 250), (320, 250), (520, 250)]

    /// The largest per-channel difference over the sample points.
    static func worstDifference(_ image: RGBImage, _ reference: RGBImage, xScale: Double = 1) -> Int {
        samples.map { x, y in
            let a = image.pixel(Int(Double(x) * xScale), y), b = reference.pixel(x, y)
            return max(abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
        }.max() ?? .max
    }

    @Test func taggedBT709BarsMatchFFmpegOnTheTwoStepPath() throws {
        // 640 wide: a multiple of 8, the Scaler's two-step path.
        let image = try Kiosk.snapshot(tagged709, size: "640x360", gravity: "fit")
        let reference = try Kiosk.reference(tagged709, filter: "scale=640:360,format=bgr0")
        #expect(Self.worstDifference(image, reference) <= 4)
        // The yellow bar really is BT.709's: BT.601 would put its green at ~201.
        #expect(image.pixel(3 * 640 / 14 + 23, 100).isNear(RGBImage.Color(190, 188, 0), tolerance: 4))
    }

    @Test func taggedBT709BarsMatchFFmpegOnTheOneStepPath() throws {
        // 636 wide: not a multiple of 8, so one sws_scale call does it all.
        let image = try Kiosk.snapshot(tagged709, size: "636x360", gravity: "stretch")
        let reference = try Kiosk.reference(tagged709, filter: "scale=636:360,format=bgr0")
        #expect(Self.worstDifference(image, reference, xScale: 636.0 / 640) <= 4)
    }

    @Test func untaggedHDIsTakenAsBT709() throws {
        let image = try Kiosk.snapshot(untaggedHD, size: "640x360", gravity: "fit")
        // ffmpeg itself would assume BT.601 for an untagged stream: tell it what the bars are.
        let reference = try Kiosk.reference(untaggedHD, filter: "scale=640:360:in_color_matrix=bt709,format=bgr0")
        #expect(Self.worstDifference(image, reference) <= 4)
    }
}
