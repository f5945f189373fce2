import KioskCore
import Testing

/// `DecodeShrink`: the size a decoded video frame is scaled to before it is queued (issue 33).
@Suite struct DecodeShrinkTests {
    let fullHD = PixelSize(width: 1920, height: 1080)

    @Test func aUHDFrameForAFullHDScreenIsQueuedAtTheScreensSize() {
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false, covering: [fullHD]) == fullHD)
    }

    @Test func theSizeCoversTheScreenAtAspectFillEvenWhenThePictureIsAnotherShape() {
        // Fill on 1280x800 scales 3840x2160 by 800/2160: the height decides (1422.2 across, up to even).
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false,
                                  covering: [PixelSize(width: 1280, height: 800)]) == PixelSize(width: 1424, height: 800))
        // A cinema-wide picture: the width decides (0.63 each side: a converting shrink only).
        #expect(DecodeShrink.size(of: PixelSize(width: 4096, height: 1716), quarterTurned: false, covering: [fullHD],
                                  largestFactor: DecodeShrink.largestFactorConverting) == PixelSize(width: 2578, height: 1080))
    }

    @Test func aPictureTurnedByItsTagIsMeasuredAsSeen() {
        // A phone's portrait video, stored 3840x2160 with a 90-degree tag, on a portrait viewer.
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: true,
                                  covering: [PixelSize(width: 1080, height: 1920)]) == fullHD)
        // The same on a landscape screen: fill needs the picture's stored height across 1920.
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: true, covering: [fullHD]) == nil)
    }

    @Test func wideSamplesNeedTheirStoredPixelsAcross() {
        // Anamorphic 2:1 pixels: the stored width is stretched twice on screen, so every stored
        // column is still needed at fill: no shrink.
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), sampleAspect: Rational(2, 1),
                                  quarterTurned: false, covering: [fullHD]) == nil)
        // Narrow 1:2 pixels at 7680x2160 show as 3840x2160: half of each side is enough.
        #expect(DecodeShrink.size(of: PixelSize(width: 7680, height: 2160), sampleAspect: Rational(1, 2),
                                  quarterTurned: false, covering: [fullHD]) == PixelSize(width: 3840, height: 1080))
    }

    @Test func onlyARealSavingIsWorthASecondScale() {
        #expect(DecodeShrink.size(of: fullHD, quarterTurned: false, covering: [fullHD]) == nil)
        #expect(DecodeShrink.size(of: PixelSize(width: 640, height: 360), quarterTurned: false, covering: [fullHD]) == nil)
        // A source the presenter scales with SIMD: from half each side. 1080p on a 1280x800
        // panel (fill keeps 0.74) stays one scale, as before.
        #expect(DecodeShrink.size(of: fullHD, quarterTurned: false, covering: [PixelSize(width: 1280, height: 800)]) == nil)
        #expect(DecodeShrink.size(of: PixelSize(width: 3800, height: 2138), quarterTurned: false, covering: [fullHD]) == nil)
        // A source it would scale in C (10-bit): from 0.8, the shrink also converts it.
        let converting = DecodeShrink.largestFactorConverting
        #expect(DecodeShrink.size(of: PixelSize(width: 2200, height: 1238), quarterTurned: false, covering: [fullHD],
                                  largestFactor: converting) == nil)
        #expect(DecodeShrink.size(of: PixelSize(width: 2400, height: 1350), quarterTurned: false, covering: [fullHD],
                                  largestFactor: converting) == fullHD)
    }

    @Test func theLargestScreenDecidesAndOddSidesRoundUpToEven() {
        let screens = [PixelSize(width: 1280, height: 720), PixelSize(width: 1366, height: 768)]
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false, covering: screens)
                == PixelSize(width: 1366, height: 770))
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false,
                                  covering: [PixelSize(width: 1001, height: 563)]) == PixelSize(width: 1002, height: 564))
    }

    @Test func noScreenOrNoPictureMeansNoShrink() {
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false, covering: []) == nil)
        #expect(DecodeShrink.size(of: PixelSize(width: 3840, height: 2160), quarterTurned: false,
                                  covering: [PixelSize(width: 0, height: 0)]) == nil)
        #expect(DecodeShrink.size(of: PixelSize(width: 0, height: 2160), quarterTurned: false, covering: [fullHD]) == nil)
    }
}
