import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// HEIC stills through libheif (issue 22): files made at test time by heif-enc from a PNG of four
/// quadrants (StillOrientationTests' picture), decoded by kiosk and drawn by its scaler, against
/// the PNG itself (colours, within HEVC's loss) and ffmpeg's turns of it (orientation).
@Suite struct HeifStillTests {
    static let size = PixelSize(width: 320, height: 240)
    static let split = (x: 128, y: 96)

    static let heifEncPresent = (try? MediaFixtures.run("heif-enc", ["--list-encoders"]).status) == 0

    static let encodeLock = NSLock()

    static func source() throws -> String {
        try StillOrientationTests.plain(.png, width: size.width, height: size.height, splitX: split.x, splitY: split.y)
    }

    /// The same quadrants in mid tones for the colour checks: saturated primaries clip in RGB
    /// and would hide a wrong matrix or range, mid tones show it.
    static func midTones() throws -> String {
        let (w, h, x, y) = (size.width, size.height, split.x, split.y)
        let filter = "color=c=0xC04040:s=\(w)x\(h):d=1," +
            "drawbox=x=\(x):y=0:w=\(w - x):h=\(y):color=0x40A060:t=fill," +
            "drawbox=x=0:y=\(y):w=\(x):h=\(h - y):color=0x4060C0:t=fill," +
            "drawbox=x=\(x):y=\(y):w=\(w - x):h=\(h - y):color=0xB0B050:t=fill"
        return try MediaFixtures.clip("midtones-\(w)x\(h).png", ["-f", "lavfi", "-i", filter, "-frames:v", "1", "-pix_fmt", "rgb24"])
    }

    /// `png` encoded by heif-enc into `name` (.heic or .avif: heif-enc picks the codec by it).
    static func encoded(_ name: String, from png: String) throws -> String {
        try #require(heifEncPresent, "heif-enc is missing: deploy/setup installs libheif-examples")
        // Tests run in parallel and share the files: one heif-enc at a time.
        encodeLock.lock(); defer { encodeLock.unlock() }
        let path = MediaFixtures.directory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) { return path }
        let partial = MediaFixtures.directory.appendingPathComponent("partial-" + name).path
        let result = try MediaFixtures.run("heif-enc", ["-q", "90", png, "-o", partial])
        guard result.status == 0 else { throw FixtureError("heif-enc failed making \(name): \(result.stderr)") }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    /// A copy of `heic` whose bytes `edit` changed.
    static func edited(_ heic: String, _ name: String, _ edit: (inout HeifBoxEditor) throws -> Void) throws -> String {
        var editor = HeifBoxEditor([UInt8](try Data(contentsOf: URL(fileURLWithPath: heic))))
        try edit(&editor)
        return try MediaFixtures.file(name, bytes: editor.bytes)
    }

    /// The mean colour of each quadrant's inside (8 px off its edges, clear of chroma blur), in
    /// the order red, green, blue, yellow, of a `width`x`height` picture split at `split`.
    static func quadrantMeans(_ image: RGBImage, split: (x: Int, y: Int)) -> [RGBImage.Color] {
        let xs = [(0, split.x), (split.x, image.width)], ys = [(0, split.y), (split.y, image.height)]
        return [(0, 0), (1, 0), (0, 1), (1, 1)].map { column, row in
            var sums = (0, 0, 0), count = 0
            for y in (ys[row].0 + 8)..<(ys[row].1 - 8) {
                for x in (xs[column].0 + 8)..<(xs[column].1 - 8) {
                    let pixel = image.pixel(x, y)
                    sums = (sums.0 + pixel.r, sums.1 + pixel.g, sums.2 + pixel.b)
                    count += 1
                }
            }
            return RGBImage.Color(sums.0 / count, sums.1 / count, sums.2 / count)
        }
    }

    /// Colours as the PNG has them, within `tolerance` per channel: a wrong matrix (BT.709 for
    /// BT.601) moves saturated yellow and green by 10-20 levels, a wrong range by 16-30.
    static func expectColours(_ shown: RGBImage, as source: RGBImage, tolerance: Int = 6) {
        let got = quadrantMeans(shown, split: split), want = quadrantMeans(source, split: split)
        for (index, (a, b)) in zip(got, want).enumerated() {
            let off = max(abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
            #expect(off <= tolerance, "quadrant \(index): kiosk shows \(a), the PNG has \(b) (\(off) levels off)")
        }
    }

    @Test func heicShowsItsPictureInItsColours() throws {
        let png = try Self.source()
        let frame = try HeifStill.decode(try Self.encoded("quadrants.heic", from: png))
        #expect(frame.size == Self.size)
        #expect(frame.rotation == .none)
        let source = try RGBImage(reading: png)
        #expect(StillOrientationTests.misplacedPixels(try StillOrientationTests.drawn(frame), source).isEmpty)
        let mid = try Self.midTones()
        let midFrame = try HeifStill.decode(try Self.encoded("midtones.heic", from: mid))
        Self.expectColours(try StillOrientationTests.drawn(midFrame), as: try RGBImage(reading: mid))
    }

    /// irot turns counter-clockwise by `angle` quarters; libheif applies it while decoding, so
    /// the frame arrives upright and carries no turn for the scaler to do again.
    @Test(arguments: [(1, "transpose=cclock"), (2, "hflip,vflip"), (3, "transpose=clock")])
    func rotatedHeicStandsUprightOnce(angle: Int, filter: String) throws {
        let png = try Self.source()
        let heic = try Self.encoded("quadrants.heic", from: png)
        let rotated = try Self.edited(heic, "quadrants-irot\(angle).heic") { try $0.addRotation(angle: angle) }
        let frame = try HeifStill.decode(rotated)
        #expect(frame.size == (angle % 2 == 1 ? Self.size.transposed : Self.size))
        #expect(frame.rotation == .none)
        let reference = try RGBImage(reading: try MediaFixtures.clip("quadrants-heif-reference-irot\(angle).png",
                                                                     ["-i", png, "-vf", filter, "-frames:v", "1", "-pix_fmt", "rgb24"]))
        let shown = try StillOrientationTests.drawn(frame)
        try #require(shown.width == reference.width && shown.height == reference.height)
        let wrong = StillOrientationTests.misplacedPixels(shown, reference)
        #expect(wrong.isEmpty, "\(wrong.count) pixels in the wrong quadrant, first at \(wrong.prefix(3))")
    }

    /// Damaged files are one MediaError naming the file, with libheif's reason.
    @Test func damagedHeicIsOneErrorNamingIt() throws {
        let heic = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.encoded("quadrants.heic", from: try Self.source()))))
        var generator = SystemRandomNumberGenerator()
        let garbage = try MediaFixtures.file("garbage.heic", bytes: (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        // The boxes are whole, the coded picture cut off half way.
        let truncated = try MediaFixtures.file("truncated.heic", bytes: Array(heic.prefix(heic.count * 6 / 10)))
        let text = try MediaFixtures.file("text.heif", bytes: Array("not a photo\n".utf8))
        for path in [garbage, truncated, text] {
            let error = StillSizeLimitMediaTests.mediaError { try HeifStill.decode(path) }
            #expect(error?.source == path)
            #expect(error?.reason.hasPrefix("libheif cannot") == true, "\(path): \(error?.reason ?? "")")
            #expect(error?.description.contains("\n") == false, "\(error?.description ?? "")")
        }
    }

    /// `kiosk probe` reads the boxes and does not decode: what it says of a whole HEIC is what
    /// decoding says; a file whose coded picture is damaged (boxes whole) still probes, which
    /// a decoding probe could not; what a play refuses before decoding is refused the same way.
    @Test func probeReadsTheBoxesWithoutDecoding() throws {
        let heic = try Self.encoded("quadrants.heic", from: try Self.source())
        let probed = try HeifStill.probe(heic)
        #expect(probed == HeifStill.info(of: heic, frame: try HeifStill.decode(heic)))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: heic)))
        // The boxes kept, the coded picture (the mdat box's payload, after them) overwritten with
        // 0xFF: its NAL lengths point past the data. The same length, so the boxes still read.
        let mdat = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == Array("mdat".utf8) })
        let damaged = try MediaFixtures.file("probe-damaged.heic", bytes: Array(bytes.prefix(mdat + 4))
                                                 + [UInt8](repeating: 0xFF, count: bytes.count - mdat - 4))
        #expect(StillSizeLimitMediaTests.mediaError { try HeifStill.decode(damaged) } != nil, "the picture is damaged")
        let cut = try HeifStill.probe(damaged)
        #expect(cut.streams.first?.width == probed.streams.first?.width && cut.streams.first?.height == probed.streams.first?.height)
        let huge = try Self.edited(heic, "probe-48mp.heic") { try $0.setImageSize(width: 8000, height: 6000) }
        #expect(StillSizeLimitMediaTests.mediaError { try HeifStill.probe(huge) }?.reason
                == StillSizeLimit.heifRefusal(picture: PixelSize(width: 8000, height: 6000), bitsPerPixel: 12))
        let text = try MediaFixtures.file("probe-text.heif", bytes: Array("not a photo\n".utf8))
        #expect(StillSizeLimitMediaTests.mediaError { try HeifStill.probe(text) }?.reason.hasPrefix("libheif cannot") == true)
    }

    /// The size libheif reads from the file is checked before anything is decoded: a picture
    /// claiming 8000x6000 is refused though its coded data is small.
    @Test func hugeHeicIsRefusedBeforeDecoding() throws {
        let heic = try Self.encoded("quadrants.heic", from: try Self.source())
        let huge = try Self.edited(heic, "quadrants-48mp.heic") { try $0.setImageSize(width: 8000, height: 6000) }
        let error = StillSizeLimitMediaTests.mediaError { try HeifStill.decode(huge) }
        #expect(error?.reason == StillSizeLimit.heifRefusal(picture: PixelSize(width: 8000, height: 6000), bitsPerPixel: 12))
        #expect(error?.reason.contains("64 MiB") == true)
        let wide = try Self.edited(heic, "quadrants-wide.heic") { try $0.setImageSize(width: 9000, height: 240) }
        let wideError = StillSizeLimitMediaTests.mediaError { try HeifStill.decode(wide) }
        #expect(wideError?.reason == "picture is 9000x240; kiosk plays up to 8192x8192")
    }

    /// A HEIC renamed .jpg goes to libheif by its first bytes; other stills and URLs do not.
    @Test func heifIsRecognisedByNameOrContent() throws {
        let png = try Self.source()
        let heic = try Self.encoded("quadrants.heic", from: png)
        let renamed = try MediaFixtures.file("photo-really-heic.jpg", bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: heic))))
        #expect(HeifStill.handles(renamed))
        #expect(!HeifStill.handles(renamed, sniff: false))
        #expect(!HeifStill.handles(png))
        #expect(HeifStill.handles("/nowhere/IMG_0001.HEIC"))
        #expect(!HeifStill.handles("https://example.com/photo.heic"))
        let frame = try #require(try HeifStill.decodeIfHeif(renamed))
        #expect(frame.size == Self.size)
        #expect(try HeifStill.decodeIfHeif(png) == nil)
        #expect(HeifStill.info(of: heic, frame: frame).bestVideo?.isStillImage == true)
    }

    /// The major brand decides, not libheif's `heif_check_filetype` (trixie's says "yes,
    /// unsupported" for any ISO BMFF file: every .mp4 went to libheif there).
    @Test(arguments: [("heic", true), ("heix", true), ("mif1", true), ("avif", true), ("isom", false),
                      ("mp42", false), ("msf1", false), ("qt  ", false), ("M4V ", false)])
    func aStillIsHeifByItsMajorBrand(_ brand: String, _ isHeif: Bool) {
        let box: [UInt8] = [0, 0, 0, 24] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1isom".utf8)
        #expect(HeifSniff.isHeif(box) == isHeif)
        #expect(!HeifSniff.isHeif(Array(box.prefix(11))), "too short to say")
        #expect(!HeifSniff.isHeif([0, 0, 0, 24] + Array("moov".utf8) + Array(brand.utf8)), "no ftyp box")
    }

    @Test func anMP4IsNotTakenForHeif() throws {
        let clip = try MediaFixtures.pattern("sniff-clip.mp4", width: 64, height: 48, seconds: 0.5)
        #expect(!HeifStill.handles(clip))
        #expect(try HeifStill.decodeIfHeif(clip) == nil)
    }

    /// AVIF goes the same way where libheif has an AV1 decoder (Debian 12's has dav1d and aom).
    @Test func avifShowsItsPictureWhereLibheifDecodesAV1() throws {
        let heif = try LibHeif.api(for: "the test")
        let decodesAV1 = HeifSniff.decodesAV1(heif: heif)
        try #require(decodesAV1, "this libheif has no AV1 decoder")
        let png = try Self.midTones()
        let frame = try HeifStill.decode(try Self.encoded("midtones.avif", from: png))
        #expect(frame.size == Self.size)
        Self.expectColours(try StillOrientationTests.drawn(frame), as: try RGBImage(reading: png))
    }
}
