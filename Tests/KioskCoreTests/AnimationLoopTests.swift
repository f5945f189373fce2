import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

/// An animated picture given a `duration` loops until then (`AnimationLoop`).
@Suite struct AnimationLoopTests {
    static func ms(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1000) }

    /// Passes of 1.4 s in 3.2 s: two whole, the third cut; none after.
    @Test func passesFollowEachOtherUntilTheDuration() {
        let loop = AnimationLoop(duration: Self.ms(3_200))
        #expect(loop.nextOffset(after: .zero, passLength: Self.ms(1_400)) == Self.ms(1_400))
        #expect(loop.nextOffset(after: Self.ms(1_400), passLength: Self.ms(1_400)) == Self.ms(2_800))
        #expect(loop.nextOffset(after: Self.ms(2_800), passLength: Self.ms(1_400)) == nil)
        // Exactly two passes long: no third pass of nothing.
        #expect(AnimationLoop(duration: Self.ms(2_800)).nextOffset(after: Self.ms(1_400), passLength: Self.ms(1_400)) == nil)
    }

    /// A pass too short (a damaged file of zero delays), or of no known length, plays once.
    @Test func aPassTooShortOrUnknownIsNotLooped() {
        let loop = AnimationLoop(duration: Self.ms(30_000))
        #expect(loop.nextOffset(after: .zero, passLength: Self.ms(10)) == nil)
        #expect(loop.nextOffset(after: .zero, passLength: nil) == nil)
        #expect(loop.place(of: Self.ms(20_000), passLength: Self.ms(10)) == (Self.ms(20_000), .zero))
    }

    /// A seek lands in the pass its time falls in; a pass's boundary is the next pass's start;
    /// the item's end is the last pass's last moment; outside [0, duration] it is clamped.
    @Test func aSeekLandsInThePassItsTimeFallsIn() {
        let loop = AnimationLoop(duration: Self.ms(3_200))
        let pass = Self.ms(1_400)
        #expect(loop.place(of: Self.ms(600), passLength: pass) == (Self.ms(600), .zero))
        #expect(loop.place(of: Self.ms(2_000), passLength: pass) == (Self.ms(600), Self.ms(1_400)))
        #expect(loop.place(of: Self.ms(2_800), passLength: pass) == (.zero, Self.ms(2_800)))
        #expect(loop.place(of: Self.ms(3_200), passLength: pass) == (Self.ms(400), Self.ms(2_800)))
        #expect(loop.place(of: Self.ms(9_000), passLength: pass) == (Self.ms(400), Self.ms(2_800)))
        #expect(loop.place(of: Self.ms(-500), passLength: pass) == (.zero, .zero))
        // A duration on a boundary: its end is the second pass's end, not a third pass's start.
        #expect(AnimationLoop(duration: Self.ms(2_800)).place(of: Self.ms(2_800), passLength: pass) == (pass, pass))
        // A pass length in doubles that does not divide evenly (1/3 s): exact on the boundary.
        let third = MediaTime(value: 1, timescale: 3)
        #expect(AnimationLoop(duration: Self.ms(2_000)).place(of: MediaTime(value: 1, timescale: 1), passLength: third)
                == (.zero, MediaTime(value: 1, timescale: 1)))
    }

    /// Only an animated picture's file given a `duration` and no trim loops; it then lasts its
    /// duration (the engine and the synchronised timeline read it from `playLength`).
    @Test func anAnimatedPictureWithADurationLoopsForIt() {
        func entry(_ path: String, duration: Double?, end: Double? = nil, still: Bool = false) -> PlaylistEntry {
            var item = ItemConfig(source: .file(path), location: SourceLocation(file: "kiosk.conf", line: 1, column: 1))
            item.duration = duration.map { MediaTime(seconds: $0) }
            item.end = end.map { MediaTime(seconds: $0) }
            var entry = PlaylistEntry(media: .file(path), item: item, itemIndex: 0)
            entry.isStillImage = still
            return entry
        }
        let gif = entry("/media/sale.GIF", duration: 30)
        #expect(gif.animationLoop == AnimationLoop(duration: MediaTime(seconds: 30)))
        #expect(gif.playLength(mediaSeconds: 2.4, imageDuration: MediaTime(seconds: 10)) == MediaTime(seconds: 30))
        #expect(entry("/media/sale.webp", duration: 8).animationLoop != nil)
        #expect(entry("/media/sale.apng", duration: 8).animationLoop != nil)
        // Without a duration, it plays once, its own length.
        #expect(entry("/media/sale.gif", duration: nil).animationLoop == nil)
        #expect(entry("/media/sale.gif", duration: nil).playLength(mediaSeconds: 2.4, imageDuration: .zero) == MediaTime(seconds: 2.4))
        // A video's `duration` is a live stream's; a still's is its own; a trim wins.
        #expect(entry("/media/clip.mp4", duration: 30).animationLoop == nil)
        #expect(entry("/media/poster.gif", duration: 30, still: true).animationLoop == nil)
        #expect(entry("/media/sale.gif", duration: 30, end: 1).animationLoop == nil)
    }
}
