import Foundation
import KioskCore
import KioskTestSupport
import Testing
@testable import KioskMedia

/// A picture's formats and how the test makes its untagged copy from the base PNG.
enum StillFormat: String, CaseIterable, Sendable {
    case jpeg = "jpg", png, webp

    /// 4:4:4 at the best quality keeps JPEG's colours flat up to the quadrant edges.
    var encodeArguments: [String] {
        switch self {
        case .jpeg: ["-q:v", "1", "-pix_fmt", "yuvj444p"]
        case .png: ["-pix_fmt", "rgb24"]
        case .webp: ["-c:v", "libwebp", "-quality", "100"]
        }
    }
}

struct StillOrientationCase: Sendable, CustomStringConvertible {
    let format: StillFormat
    let exif: Int
    var description: String { "\(format.rawValue) EXIF \(exif)" }
}

/// Photos stand upright (issue 22): a picture of four coloured quadrants of unequal sizes, tagged
/// with EXIF Orientation 1-8 by exiftool, decoded and oriented by kiosk, against the untagged
/// picture turned by ffmpeg's own hflip/vflip/transpose filters (an independent reference).
@Suite struct StillOrientationTests {
    /// Off-centre splits (multiples of 16, JPEG's block) so that every mirror and turn moves them.
    static let size = PixelSize(width: 96, height: 64)
    static let split = (x: 32, y: 16)
    static let palette: [RGBImage.Color] = [.red, .green, .blue, .yellow]

    /// Red top-left, green top-right, blue bottom-left, yellow bottom-right.
    static func quadrantFilter(width: Int, height: Int, splitX: Int, splitY: Int) -> String {
        "color=c=0xFF0000:s=\(width)x\(height):d=1," +
            "drawbox=x=\(splitX):y=0:w=\(width - splitX):h=\(splitY):color=0x00FF00:t=fill," +
            "drawbox=x=0:y=\(splitY):w=\(splitX):h=\(height - splitY):color=0x0000FF:t=fill," +
            "drawbox=x=\(splitX):y=\(splitY):w=\(width - splitX):h=\(height - splitY):color=0xFFFF00:t=fill"
    }

    /// ffmpeg's filter doing what EXIF `value` asks of the stored picture.
    static func referenceFilter(exif value: Int) -> String {
        ["null", "hflip", "hflip,vflip", "vflip", "transpose=cclock_flip", "transpose=clock",
         "transpose=clock_flip", "transpose=cclock"][value - 1]
    }

    static let exiftoolPresent = (try? MediaFixtures.run("exiftool", ["-ver"]).status) == 0
    static let webpEncoderPresent = (try? MediaFixtures.run("ffmpeg", ["-hide_banner", "-encoders"]))?.stdout.contains("libwebp") ?? false

    static var cases: [StillOrientationCase] {
        StillFormat.allCases.flatMap { format in (1...8).map { StillOrientationCase(format: format, exif: $0) } }
    }

    /// The untagged picture in `format`, `width`x`height`, split at (`splitX`, `splitY`).
    static func plain(_ format: StillFormat, width: Int = size.width, height: Int = size.height,
                      splitX: Int = split.x, splitY: Int = split.y) throws -> String {
        let base = try MediaFixtures.clip("quadrants-\(width)x\(height).png",
                                          ["-f", "lavfi", "-i", quadrantFilter(width: width, height: height, splitX: splitX, splitY: splitY),
                                           "-frames:v", "1", "-pix_fmt", "rgb24"])
        return try MediaFixtures.clip("quadrants-\(width)x\(height)-plain.\(format.rawValue)",
                                      ["-i", base, "-frames:v", "1"] + format.encodeArguments)
    }

    /// A copy of `plain` tagged Orientation `value` by exiftool (writes the EXIF into a JPEG's
    /// APP1, a PNG's eXIf chunk, a WebP's EXIF chunk).
    static func tagged(_ plain: String, exif value: Int) throws -> String {
        let url = URL(fileURLWithPath: plain)
        let path = url.deletingPathExtension().path + "-exif\(value)." + url.pathExtension
        if FileManager.default.fileExists(atPath: path) { return path }
        // exiftool tells the format by the extension: the partial copy keeps it.
        let partial = url.deletingLastPathComponent().appendingPathComponent("partial-" + URL(fileURLWithPath: path).lastPathComponent).path
        try? FileManager.default.removeItem(atPath: partial)
        try FileManager.default.copyItem(atPath: plain, toPath: partial)
        let result = try MediaFixtures.run("exiftool", ["-q", "-overwrite_original", "-Orientation#=\(value)", partial])
        guard result.status == 0 else { throw FixtureError("exiftool failed tagging \(path): \(result.stderr)") }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        return path
    }

    /// The untagged picture through ffmpeg's filter for `value`, read back as RGB.
    static func reference(_ plain: String, exif value: Int, extraFilter: String = "") throws -> RGBImage {
        let name = URL(fileURLWithPath: plain).deletingPathExtension().lastPathComponent
            + "-\(URL(fileURLWithPath: plain).pathExtension)-reference\(value)\(extraFilter.isEmpty ? "" : "-small").png"
        let path = try MediaFixtures.clip(name, ["-i", plain, "-vf", referenceFilter(exif: value) + extraFilter,
                                                 "-frames:v", "1", "-pix_fmt", "rgb24"])
        return try RGBImage(reading: path)
    }

    /// kiosk's picture of `path`: decoded, oriented, drawn 1:1 by the scaler as on a screen.
    static func shownByKiosk(_ path: String, stillScreen: PixelSize? = nil) throws -> (image: RGBImage, lowres: Int) {
        let reader = try VideoFrameReader(asset: try Asset(source: path), stillScreen: stillScreen)
        let frame = try #require(try reader.nextFrame())
        return (try drawn(frame), reader.lowres)
    }

    /// `frame` drawn 1:1 (turned upright when it carries a turn) by the scaler, as on a screen.
    static func drawn(_ frame: DecodedFrame) throws -> RGBImage {
        let upright = frame.rotation.swapsAxes ? frame.size.transposed : frame.size
        let layout = Scaler.layout(for: frame, on: upright, gravity: .stretch)
        let stride = upright.width * 4
        let memory = UnsafeMutableRawPointer.allocate(byteCount: stride * upright.height, alignment: 64)
        defer { memory.deallocate() }
        try Scaler().draw(frame, layout: layout, into: PixelBuffer(base: memory, size: upright, stride: stride, index: 0))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(upright.width * upright.height * 3)
        for index in 0..<(upright.width * upright.height) {
            let pixel = memory.load(fromByteOffset: index * 4, as: UInt32.self)   // XRGB8888
            bytes += [UInt8((pixel >> 16) & 0xFF), UInt8((pixel >> 8) & 0xFF), UInt8(pixel & 0xFF)]
        }
        return RGBImage(width: upright.width, height: upright.height, bytes: bytes)
    }

    /// Which quadrant colour `color` is.
    static func quadrant(_ color: RGBImage.Color) -> Int {
        palette.indices.min { a, b in
            func distance(_ p: RGBImage.Color) -> Int { (p.r - color.r) * (p.r - color.r) + (p.g - color.g) * (p.g - color.g) + (p.b - color.b) * (p.b - color.b) }
            return distance(palette[a]) < distance(palette[b])
        }!
    }

    /// Pixels whose quadrant differs from the reference's, not counting those within 1 px of a
    /// quadrant boundary in the reference (where compression and chroma blur).
    static func misplacedPixels(_ shown: RGBImage, _ reference: RGBImage) -> [(Int, Int)] {
        var wrong: [(Int, Int)] = []
        for y in 0..<reference.height {
            for x in 0..<reference.width {
                let expected = quadrant(reference.pixel(x, y))
                guard quadrant(shown.pixel(x, y)) != expected else { continue }
                let nearBoundary = (max(0, y - 1)...min(reference.height - 1, y + 1)).contains { ny in
                    (max(0, x - 1)...min(reference.width - 1, x + 1)).contains { nx in quadrant(reference.pixel(nx, ny)) != expected }
                }
                if !nearBoundary { wrong.append((x, y)) }
            }
        }
        return wrong
    }

    @Test(arguments: cases)
    func stillIsShownUpright(_ item: StillOrientationCase) throws {
        try #require(Self.exiftoolPresent, "exiftool is missing: deploy/setup installs libimage-exiftool-perl")
        if item.format == .webp { try #require(Self.webpEncoderPresent, "this ffmpeg has no libwebp encoder") }
        let plain = try Self.plain(item.format)
        let tagged = try Self.tagged(plain, exif: item.exif)
        let reference = try Self.reference(plain, exif: item.exif)
        let shown = try Self.shownByKiosk(tagged).image
        try #require(shown.width == reference.width && shown.height == reference.height,
                     "kiosk shows \(shown.width)x\(shown.height), the reference is \(reference.width)x\(reference.height)")
        let wrong = Self.misplacedPixels(shown, reference)
        #expect(wrong.isEmpty, "\(wrong.count) pixels in the wrong quadrant, first at \(wrong.prefix(3))")
    }

    /// A JPEG much larger than the screen is decoded at the smallest `lowres` covering it, and
    /// still stands upright, mirror included.
    @Test(arguments: [5, 6])
    func largeJpegIsDecodedSmallerAndUpright(exif value: Int) throws {
        try #require(Self.exiftoolPresent, "exiftool is missing: deploy/setup installs libimage-exiftool-perl")
        let plain = try Self.plain(.jpeg, width: 1600, height: 1200, splitX: 512, splitY: 384)
        let tagged = try Self.tagged(plain, exif: value)
        // 1600x1200 on 320x240: at 1/2 (800x600) both sides still cover 320; 1/4 (400x300) not.
        let (shown, lowres) = try Self.shownByKiosk(tagged, stillScreen: PixelSize(width: 320, height: 240))
        #expect(lowres == 1)
        let reference = try Self.reference(plain, exif: value, extraFilter: ",scale=iw/2:ih/2:flags=neighbor")
        try #require(shown.width == reference.width && shown.height == reference.height,
                     "kiosk shows \(shown.width)x\(shown.height), the reference is \(reference.width)x\(reference.height)")
        let wrong = Self.misplacedPixels(shown, reference)
        #expect(wrong.isEmpty, "\(wrong.count) pixels in the wrong quadrant, first at \(wrong.prefix(3))")
    }

    /// A malformed eXIf chunk is ignored: the PNG shows as stored.
    @Test func malformedPngExifIsIgnored() throws {
        let plain = try Self.plain(.png)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        // An eXIf chunk after IHDR (8 + 25 bytes) whose directory offset points far away.
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0x7F, 0, 0, 0]
        bytes.insert(contentsOf: [0, 0, 0, UInt8(tiff.count)] + Array("eXIf".utf8) + tiff + [0, 0, 0, 0], at: 33)
        let path = try MediaFixtures.file("quadrants-bad-exif.png", bytes: bytes)
        #expect(StillOrientation.pngExifOrientation(path: path) == nil)
        let shown = try Self.shownByKiosk(path).image
        #expect(Self.misplacedPixels(shown, try Self.reference(plain, exif: 1)).isEmpty)
    }
}
