/// How far a large JPEG still is decoded below its full size: libavcodec's mjpeg `lowres`
/// decodes at 1/2, 1/4 or 1/8 (levels 1-3) for a fraction of the memory and time; a 48 MP
/// photo is ~72 MiB decoded whole, ~18 MiB at level 1, ~4.5 MiB at level 2.
public enum StillDecodeScale {
    public static let maximumLowres = 3

    /// The largest level (at most `maximum`) whose picture still covers `screen` upright or
    /// turned a quarter: both its sides at least the screen's longer side. The EXIF turn is
    /// only known once the frame is decoded, and a photo tagged 6 shows its stored height
    /// across a landscape screen; so the picture is never scaled up on screen, whichever way
    /// it turns, at the cost of one level less than a known orientation might allow.
    /// 0 for a picture smaller than that or an unknown size.
    public static func lowres(picture: PixelSize, screen: PixelSize, maximum: Int = maximumLowres) -> Int {
        guard !picture.isEmpty, !screen.isEmpty, maximum >= 1 else { return 0 }
        let screenLong = max(screen.width, screen.height)
        var chosen = 0
        for level in 1...min(maximum, maximumLowres) {
            // libavcodec rounds a reduced side up (AV_CEIL_RSHIFT).
            let width = (picture.width + (1 << level) - 1) >> level
            let height = (picture.height + (1 << level) - 1) >> level
            guard min(width, height) >= screenLong else { break }
            chosen = level
        }
        return chosen
    }
}

/// What a still may cost once decoded (issue 22): a signage box has little memory to spare, and
/// one photo must not take it all. A JPEG is measured at the `lowres` size it decodes at.
public enum StillSizeLimit {
    public static let maximumDecodedBytes = 64 * 1024 * 1024
    /// PNG and WebP have no reduced decode: past 16 MP they are refused whole.
    public static let maximumFullDecodePixels = 16_000_000

    /// Why a still of `picture` (its stored size) is not shown, nil when it may be: decoded at
    /// `lowres` with `bitsPerPixel` (0 when unknown: 32 is assumed), `reducible` when its
    /// decoder has a `lowres` (JPEG).
    public static func refusal(picture: PixelSize, lowres: Int, bitsPerPixel: Int, reducible: Bool) -> String? {
        guard !picture.isEmpty else { return nil }
        let pixels = picture.width * picture.height
        if !reducible && pixels > maximumFullDecodePixels {
            return "picture is \(picture) (\(megapixels(pixels)) MP); kiosk shows PNG and WebP stills up to 16 MP"
        }
        let scale = 1 << max(0, lowres)
        let decodedPixels = ((picture.width + scale - 1) / scale) * ((picture.height + scale - 1) / scale)
        let bytes = decodedPixels * (bitsPerPixel > 0 ? bitsPerPixel : 32) / 8
        guard bytes > maximumDecodedBytes else { return nil }
        let reduced = lowres > 0 ? " at 1/\(scale) size" : ""
        return "picture is \(picture) (\(megapixels(pixels)) MP, \(bytes / (1024 * 1024)) MiB decoded\(reduced)); kiosk decodes a still into at most 64 MiB"
    }

    /// Why a HEIF still (HEIC, AVIF) of `picture` is not shown, nil when it may be. libheif
    /// 1.15 has no reduced-size decode (nothing like JPEG's `lowres`), so it decodes whole into
    /// `bitsPerPixel` (12 for 8-bit 4:2:0, plus 8 with an alpha plane) and a larger one is
    /// refused, not shrunk.
    public static func heifRefusal(picture: PixelSize, bitsPerPixel: Int) -> String? {
        guard !picture.isEmpty else { return nil }
        let pixels = picture.width * picture.height
        let bytes = pixels * bitsPerPixel / 8
        guard bytes > maximumDecodedBytes else { return nil }
        return "picture is \(picture) (\(megapixels(pixels)) MP, \(bytes / (1024 * 1024)) MiB decoded); kiosk decodes a still into at most 64 MiB and libheif 1.15 cannot decode a HEIF at a reduced size"
    }

    private static func megapixels(_ pixels: Int) -> String {
        let tenths = (pixels + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
