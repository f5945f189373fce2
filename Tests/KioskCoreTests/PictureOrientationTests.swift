import Foundation
import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// One row per EXIF orientation: what it means, and the display matrix FFmpeg 5.1's mjpeg
/// decoder attaches for it (read from its frames; the 2x2 part, in units of 1.0 = 65536).
struct OrientationCase: Sendable, CustomStringConvertible {
    let exif: Int
    let mirrored: Bool
    let rotation: Rotation
    let matrix: (Int32, Int32, Int32, Int32)
    /// Where stored corner (0, 0) of a 4x2 picture lands upright.
    let topLeftLandsAt: (Int, Int)
    var description: String { "EXIF \(exif)" }
}

let orientationTable: [OrientationCase] = [
    OrientationCase(exif: 1, mirrored: false, rotation: .none, matrix: (1, 0, 0, 1), topLeftLandsAt: (0, 0)),
    OrientationCase(exif: 2, mirrored: true, rotation: .none, matrix: (-1, 0, 0, 1), topLeftLandsAt: (3, 0)),
    OrientationCase(exif: 3, mirrored: false, rotation: .clockwise180, matrix: (-1, 0, 0, -1), topLeftLandsAt: (3, 1)),
    OrientationCase(exif: 4, mirrored: true, rotation: .clockwise180, matrix: (1, 0, 0, -1), topLeftLandsAt: (0, 1)),
    OrientationCase(exif: 5, mirrored: true, rotation: .clockwise270, matrix: (0, 1, 1, 0), topLeftLandsAt: (0, 0)),
    OrientationCase(exif: 6, mirrored: false, rotation: .clockwise90, matrix: (0, 1, -1, 0), topLeftLandsAt: (1, 0)),
    OrientationCase(exif: 7, mirrored: true, rotation: .clockwise90, matrix: (0, -1, -1, 0), topLeftLandsAt: (1, 3)),
    OrientationCase(exif: 8, mirrored: false, rotation: .clockwise270, matrix: (0, -1, 1, 0), topLeftLandsAt: (0, 3)),
]

/// FFmpeg's av_display_rotation_set(angle) then av_display_matrix_flip(hflip, 0), in 16.16.
private func ffmpegMatrix(clockwiseDegrees: Double, hflip: Bool) -> [Int32] {
    let radians = -clockwiseDegrees * Double.pi / 180
    let c = cos(radians), s = sin(radians)
    func fixed(_ value: Double) -> Int32 { Int32((value * 65536).rounded()) }
    var matrix: [Int32] = [fixed(c), fixed(-s), 0, fixed(s), fixed(c), 0, 0, 0, 1 << 30]
    if hflip { for i in [0, 3, 6] { matrix[i] = -matrix[i] } }
    return matrix
}

@Suite struct PictureOrientationTests {
    @Test(arguments: orientationTable)
    func exifValueMeansMirrorThenTurn(_ row: OrientationCase) throws {
        let orientation = try #require(PictureOrientation(exifValue: row.exif))
        #expect(orientation.isMirrored == row.mirrored)
        #expect(orientation.rotation == row.rotation)
        #expect(orientation.swapsAxes == (row.exif >= 5))
        #expect(PictureOrientation(mirrored: row.mirrored, rotation: row.rotation) == orientation)
        #expect(orientation.exifValue == row.exif)
    }

    @Test(arguments: orientationTable)
    func displayMatrixIsReadBySigns(_ row: OrientationCase) {
        let (a, b, c, d) = row.matrix
        let matrix: [Int32] = [a << 16, b << 16, 0, c << 16, d << 16, 0, 0, 0, 1 << 30]
        #expect(PictureOrientation(displayMatrix: matrix) == PictureOrientation(exifValue: row.exif))
    }

    /// The matrix as FFmpeg builds it from a turn and a mirror (what mjpegdec does per value),
    /// with the cosine's rounding residue in the "zero" entries. FFmpeg's matrix turns first and
    /// mirrors after; a mirror then a turn by θ is a turn by -θ then the mirror.
    @Test(arguments: orientationTable)
    func ffmpegsOwnMatrixReadsBack(_ row: OrientationCase) {
        let turnFirst = row.mirrored ? -row.rotation.degrees : row.rotation.degrees
        let matrix = ffmpegMatrix(clockwiseDegrees: Double(turnFirst), hflip: row.mirrored)
        #expect(PictureOrientation(displayMatrix: matrix) == PictureOrientation(exifValue: row.exif))
    }

    @Test(arguments: orientationTable)
    func storedCornerLandsWhereExifSays(_ row: OrientationCase) throws {
        let orientation = try #require(PictureOrientation(exifValue: row.exif))
        let stored = PixelSize(width: 4, height: 2)
        let point = orientation.uprightPoint(x: 0, y: 0, in: stored)
        #expect(point.x == row.topLeftLandsAt.0 && point.y == row.topLeftLandsAt.1)
        // Every stored pixel lands inside the upright picture, and no two on the same place.
        let upright = orientation.displayedSize(of: stored)
        var seen = Set<Int>()
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let p = orientation.uprightPoint(x: x, y: y, in: stored)
                #expect((0..<upright.width).contains(p.x) && (0..<upright.height).contains(p.y))
                seen.insert(p.y * upright.width + p.x)
            }
        }
        #expect(seen.count == 8)
    }

    /// 5-8 swap width and height in the gravity layout: a 4000x3000 photo tagged 6 is portrait.
    @Test(arguments: orientationTable)
    func gravityLayoutSwapsAxesForFiveToEight(_ row: OrientationCase) throws {
        let orientation = try #require(PictureOrientation(exifValue: row.exif))
        let layout = GravityLayout(mirroredSource: PixelSize(width: 4000, height: 3000), orientation: orientation,
                                   target: PixelSize(width: 1920, height: 1080), gravity: .fit)
        let expected = row.exif >= 5 ? PixelRect(x: 555, y: 0, width: 810, height: 1080)
                                     : PixelRect(x: 240, y: 0, width: 1440, height: 1080)
        #expect(layout.destination == expected)
        #expect(layout.rotation == row.rotation)
        #expect(orientation.displayedSize(of: PixelSize(width: 4000, height: 3000))
                == (row.exif >= 5 ? PixelSize(width: 3000, height: 4000) : PixelSize(width: 4000, height: 3000)))
    }

    @Test func valuesOutsideOneToEightAreNotOrientations() {
        for value in [-1, 0, 9, 255, 65535] { #expect(PictureOrientation(exifValue: value) == nil) }
        #expect(PictureOrientation(exifText: "    6") == .rotate90)
        #expect(PictureOrientation(exifText: "6 7") == nil)
        #expect(PictureOrientation(exifText: "") == nil)
        #expect(PictureOrientation(exifText: "x") == nil)
    }

    @Test func degenerateMatricesAreNotOrientations() {
        #expect(PictureOrientation(displayMatrix: [Int32](repeating: 0, count: 9)) == nil)
        #expect(PictureOrientation(displayMatrix: [65536, 0, 0, 0]) == nil)
        // 30° snaps to the nearest quarter (none), 60° to 90° clockwise.
        #expect(PictureOrientation(displayMatrix: ffmpegMatrix(clockwiseDegrees: 30, hflip: false)) == .normal)
        #expect(PictureOrientation(displayMatrix: ffmpegMatrix(clockwiseDegrees: 60, hflip: false)) == .rotate90)
    }
}

@Suite struct StillDecodeScaleTests {
    private func size(_ w: Int, _ h: Int) -> PixelSize { PixelSize(width: w, height: h) }

    @Test func largestLevelThatStillCoversTheScreenEitherWay() {
        // 48 MP on 1080p: 4000x3000 covers 1920 both ways, 2000x1500 does not.
        #expect(StillDecodeScale.lowres(picture: size(8000, 6000), screen: size(1920, 1080)) == 1)
        #expect(StillDecodeScale.lowres(picture: size(8000, 6000), screen: size(1280, 720)) == 2)
        #expect(StillDecodeScale.lowres(picture: size(8000, 6000), screen: size(640, 480)) == 3)
        #expect(StillDecodeScale.lowres(picture: size(8000, 6000), screen: size(640, 480), maximum: 2) == 2)
        // Portrait screens are the same question.
        #expect(StillDecodeScale.lowres(picture: size(6000, 8000), screen: size(1080, 1920)) == 1)
        // Rounded up as libavcodec does: 3839 / 2 -> 1920, 3838 / 2 -> 1919.
        #expect(StillDecodeScale.lowres(picture: size(3839, 3839), screen: size(1920, 1080)) == 1)
        #expect(StillDecodeScale.lowres(picture: size(3838, 3838), screen: size(1920, 1080)) == 0)
        #expect(StillDecodeScale.lowres(picture: size(1920, 1080), screen: size(1920, 1080)) == 0)
        #expect(StillDecodeScale.lowres(picture: size(0, 0), screen: size(1920, 1080)) == 0)
        #expect(StillDecodeScale.lowres(picture: size(8000, 6000), screen: size(1920, 1080), maximum: 0) == 0)
    }
}

@Suite struct StillSizeLimitTests {
    private func size(_ w: Int, _ h: Int) -> PixelSize { PixelSize(width: w, height: h) }

    @Test func jpegIsMeasuredAtItsReducedSize() {
        // 48 MP 4:2:0 (12 bits a pixel): 68 MiB whole, 17 MiB at 1/2.
        #expect(StillSizeLimit.refusal(picture: size(8000, 6000), lowres: 0, bitsPerPixel: 12, reducible: true)
                == "picture is 8000x6000 (48.0 MP, 68 MiB decoded); kiosk decodes a still into at most 64 MiB")
        #expect(StillSizeLimit.refusal(picture: size(8000, 6000), lowres: 1, bitsPerPixel: 12, reducible: true) == nil)
        #expect(StillSizeLimit.refusal(picture: size(8000, 6000), lowres: 0, bitsPerPixel: 8, reducible: true) == nil)
    }

    @Test func pngAndWebpPast16MegapixelsAreRefused() {
        #expect(StillSizeLimit.refusal(picture: size(4000, 4000), lowres: 0, bitsPerPixel: 32, reducible: false) == nil)
        #expect(StillSizeLimit.refusal(picture: size(5472, 3648), lowres: 0, bitsPerPixel: 24, reducible: false)
                == "picture is 5472x3648 (20.0 MP); kiosk shows PNG and WebP stills up to 16 MP")
        // Unknown depth counts as 32 bits: 4096x4096 is 64 MiB exactly, allowed, but past 16 MP.
        #expect(StillSizeLimit.refusal(picture: size(4096, 4096), lowres: 0, bitsPerPixel: 0, reducible: true) == nil)
        #expect(StillSizeLimit.refusal(picture: size(4097, 4096), lowres: 0, bitsPerPixel: 0, reducible: true) != nil)
    }

    @Test func heifIsMeasuredWholeAndSaysWhy() {
        // 44 MP 8-bit 4:2:0 is 63 MiB: shown; 48 MP is 68 MiB; an alpha plane adds 8 bits.
        #expect(StillSizeLimit.heifRefusal(picture: size(7680, 5760), bitsPerPixel: 12) == nil)
        #expect(StillSizeLimit.heifRefusal(picture: size(8000, 6000), bitsPerPixel: 12)
                == "picture is 8000x6000 (48.0 MP, 68 MiB decoded); kiosk decodes a still into at most 64 MiB and libheif 1.15 cannot decode a HEIF at a reduced size")
        // 35 MP: 50 MiB without alpha, 83 MiB with it.
        #expect(StillSizeLimit.heifRefusal(picture: size(7000, 5000), bitsPerPixel: 12) == nil)
        #expect(StillSizeLimit.heifRefusal(picture: size(7000, 5000), bitsPerPixel: 20)?.hasPrefix("picture is 7000x5000 (35.0 MP, 83 MiB") == true)
        #expect(StillSizeLimit.heifRefusal(picture: size(0, 0), bitsPerPixel: 12) == nil)
    }
}
