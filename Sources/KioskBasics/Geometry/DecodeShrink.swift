/// How small a decoded video frame may be made on the decode thread, before it is queued
/// (issue 33): a 4K frame shown on a 1080p screen is scaled down there once, so a queued frame
/// costs a quarter of the memory and the presenter only converts it. The size still covers
/// every screen it may be shown on at aspect-fill, the gravity that needs the most pixels (fit
/// and stretch need no more), so the picture on screen never comes from fewer pixels than it
/// has: a gravity changed while frames are queued, or a `playback.region`, is still sharp.
public enum DecodeShrink {
    /// A second scale costs a pass over the frame, so for a source the presenter scales in its
    /// SIMD path (8-bit 4:2:0, 4:2:2, NV12) it is worth it only from half each side (4K for
    /// 1080p); 1080p on a 1280x800 panel is left to the presenter, one scale as before.
    public static let largestFactor = 0.5
    /// For other sources (10-bit, 4:4:4) the presenter's one-step path is C code (4K 10-bit to
    /// 1080p: ~20 ms a frame), and the shrink makes a 10-bit 4:2:x source 8-bit 4:2:0 on the
    /// way: worth it from 0.8 (at most 64% of the pixels kept).
    public static let largestFactorConverting = 0.8

    /// The size to scale a `picture` to (both sides even, for 4:2:0 chroma), or nil to queue it
    /// as decoded (each side would keep more than `largestFactor`). `sampleAspect`: its pixels' shape (unknown counts as square); `quarterTurned`:
    /// its own rotation tag turns it a quarter; `screens`: the sizes it is drawn on, as its
    /// viewer sees them (a display rotation already applied: the presenter turns the picture by
    /// its tag plus the display's rotation into the buffer, the same as by its tag alone into
    /// the viewer's size).
    public static func size(of picture: PixelSize, sampleAspect: Rational = .one, quarterTurned: Bool,
                            covering screens: [PixelSize], largestFactor: Double = largestFactor) -> PixelSize? {
        guard !picture.isEmpty else { return nil }
        let sar = sampleAspect.isKnownAndPositive ? sampleAspect.doubleValue : 1
        // The picture as seen: stored width times the pixel aspect, turned by its tag.
        let seenWidth = Double(picture.width) * sar, seenHeight = Double(picture.height)
        let (across, down) = quarterTurned ? (seenHeight, seenWidth) : (seenWidth, seenHeight)
        var factor = 0.0
        for screen in screens where !screen.isEmpty {
            // Aspect-fill's scale of the seen picture onto this screen.
            let fill = max(Double(screen.width) / across, Double(screen.height) / down)
            // Per stored pixel: the stored width is stretched by `sar` on its way to the screen,
            // so it needs `fill * sar` pixels of its own; one factor for both sides keeps the SAR.
            factor = max(factor, fill * max(sar, 1))
        }
        guard factor > 0, factor <= largestFactor else { return nil }
        func evenCeiling(_ side: Int) -> Int {
            let scaled = Int((Double(side) * factor - 1e-9).rounded(.up))   // 2160 * (800 / 2160) is not always 800
            return min(side, max(2, scaled + scaled % 2))
        }
        return PixelSize(width: evenCeiling(picture.width), height: evenCeiling(picture.height))
    }
}
