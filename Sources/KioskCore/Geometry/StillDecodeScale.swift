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
