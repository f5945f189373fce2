/// How a picture's stored pixels are turned to stand upright: EXIF's Orientation tag, 1 to 8, in
/// exiftool's names. Each is a left-right mirror (or none) applied first, then a clockwise
/// quarter-turn `rotation`: 4 (mirror vertical) is the mirror turned 180°, 5 and 7 the mirror
/// turned 270° and 90°. Phones store a portrait photo as landscape pixels tagged 6; a selfie
/// camera may add the mirror (2, 4, 5, 7).
public enum PictureOrientation: Int, Sendable, CaseIterable, CustomStringConvertible {
    case normal = 1
    case mirrorHorizontal = 2
    case rotate180 = 3
    case mirrorVertical = 4
    case mirrorHorizontalRotate270 = 5
    case rotate90 = 6
    case mirrorHorizontalRotate90 = 7
    case rotate270 = 8

    /// The tag's value; nil for anything but 1-8 (0 and 9+ occur in the wild: ignored).
    public init?(exifValue: Int) {
        self.init(rawValue: exifValue)
    }

    /// The tag as FFmpeg's EXIF reader leaves it in a frame's metadata ("    6": padded).
    public init?(exifText: String) {
        let words = exifText.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let value = Int(words[0]) else { return nil }
        self.init(exifValue: value)
    }

    /// The orientation that mirrors left-right (when `mirrored`), then turns by `rotation`.
    public init(mirrored: Bool, rotation: Rotation) {
        switch (mirrored, rotation) {
        case (false, .none): self = .normal
        case (true, .none): self = .mirrorHorizontal
        case (false, .clockwise180): self = .rotate180
        case (true, .clockwise180): self = .mirrorVertical
        case (true, .clockwise270): self = .mirrorHorizontalRotate270
        case (false, .clockwise90): self = .rotate90
        case (true, .clockwise90): self = .mirrorHorizontalRotate90
        case (false, .clockwise270): self = .rotate270
        }
    }

    /// From FFmpeg's 3x3 display matrix (row-major, 16.16 fixed point in the 2x2 part), by the
    /// signs of its entries. `av_display_rotation_get` alone cannot be used: it reads the
    /// mirror of 2 as 180° and that of 4 as 0°. FFmpeg builds the matrix as a clockwise turn
    /// (`av_display_rotation_set`) whose first column is negated for a left-right mirror
    /// (`av_display_matrix_flip`), so with m = [m0 m1; m3 m4]:
    ///   no axis swap (|m0|+|m4| dominant): m0 > 0, m4 > 0 -> 1; m0 < 0, m4 > 0 -> 2;
    ///                                      m0 < 0, m4 < 0 -> 3; m0 > 0, m4 < 0 -> 4;
    ///   axis swap:  m1 > 0, m3 < 0 -> 6; m1 > 0, m3 > 0 -> 5; m1 < 0, m3 > 0 -> 8; m1 < 0, m3 < 0 -> 7.
    /// A turn that is not a quarter snaps to the nearest. nil for fewer than 9 entries or a
    /// degenerate matrix (a zero in the deciding pair).
    public init?(displayMatrix matrix: [Int32]) {
        guard matrix.count >= 9 else { return nil }
        let m0 = Int64(matrix[0]), m1 = Int64(matrix[1]), m3 = Int64(matrix[3]), m4 = Int64(matrix[4])
        if abs(m0) + abs(m4) >= abs(m1) + abs(m3) {
            guard m0 != 0, m4 != 0 else { return nil }
            self = m4 > 0 ? (m0 > 0 ? .normal : .mirrorHorizontal) : (m0 < 0 ? .rotate180 : .mirrorVertical)
        } else {
            guard m1 != 0, m3 != 0 else { return nil }
            self = m1 > 0 ? (m3 < 0 ? .rotate90 : .mirrorHorizontalRotate270)
                          : (m3 > 0 ? .rotate270 : .mirrorHorizontalRotate90)
        }
    }

    public var exifValue: Int { rawValue }

    /// Whether the stored pixels are mirrored left-right before the turn.
    public var isMirrored: Bool {
        switch self {
        case .mirrorHorizontal, .mirrorVertical, .mirrorHorizontalRotate270, .mirrorHorizontalRotate90: return true
        case .normal, .rotate180, .rotate90, .rotate270: return false
        }
    }

    /// The clockwise turn that follows the mirror.
    public var rotation: Rotation {
        switch self {
        case .normal, .mirrorHorizontal: return .none
        case .rotate180, .mirrorVertical: return .clockwise180
        case .rotate90, .mirrorHorizontalRotate90: return .clockwise90
        case .rotate270, .mirrorHorizontalRotate270: return .clockwise270
        }
    }

    /// 5-8: the upright picture is the stored one's height wide.
    public var swapsAxes: Bool { rotation.swapsAxes }

    /// The size the picture shows at once upright.
    public func displayedSize(of stored: PixelSize) -> PixelSize {
        swapsAxes ? stored.transposed : stored
    }

    /// Where the stored pixel (x, y) of a `stored`-sized picture lands in the upright one:
    /// the definition the tests hold the decoder's output to.
    public func uprightPoint(x: Int, y: Int, in stored: PixelSize) -> (x: Int, y: Int) {
        let mirroredX = isMirrored ? stored.width - 1 - x : x
        switch rotation {
        case .none: return (mirroredX, y)
        case .clockwise90: return (stored.height - 1 - y, mirroredX)
        case .clockwise180: return (stored.width - 1 - mirroredX, stored.height - 1 - y)
        case .clockwise270: return (y, stored.width - 1 - mirroredX)
        }
    }

    public var description: String { "EXIF \(rawValue)" }
}

extension GravityLayout {
    /// The layout of a picture whose stored pixels have `orientation`, once its mirror has been
    /// applied to the pixels (kiosk mirrors a still's decoded pixels once; only the turn is
    /// left to the scaler or the plane). 5-8 lay out with width and height swapped.
    public init(mirroredSource source: PixelSize, sampleAspect: Rational = .one, orientation: PictureOrientation,
                target: PixelSize, gravity: VideoGravity) {
        self.init(source: source, sampleAspect: sampleAspect, rotation: orientation.rotation, target: target, gravity: gravity)
    }
}
