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

    /// The file's own count: two plays of 1.4 s in 4.5 s, then the last frame holds; a seek
    /// past them lands at the last play's end (its last frame).
    @Test func noMorePassesThanTheFileSays() {
        let twice = AnimationLoop(duration: Self.ms(4_500), plays: .times(2))
        #expect(twice.nextOffset(after: .zero, passLength: Self.ms(1_400)) == Self.ms(1_400))
        #expect(twice.nextOffset(after: Self.ms(1_400), passLength: Self.ms(1_400)) == nil)
        #expect(twice.place(of: Self.ms(4_000), passLength: Self.ms(1_400)) == (Self.ms(2_600), Self.ms(1_400)))
        let once = AnimationLoop(duration: Self.ms(4_500), plays: .times(1))
        #expect(once.nextOffset(after: .zero, passLength: Self.ms(1_400)) == nil)
        #expect(once.place(of: Self.ms(3_000), passLength: Self.ms(1_400)) == (Self.ms(3_000), .zero))
        #expect(AnimationLoop(duration: Self.ms(4_500), plays: .forever).nextOffset(after: Self.ms(2_800), passLength: Self.ms(1_400))
                == Self.ms(4_200))
    }

    /// Browsers' reading of the files' counts.
    @Test func theFilesOwnPlayCounts() {
        // GIF89a, a 2-entry global colour table, then NETSCAPE2.0 with a loop count.
        func gif(loop: UInt16?) -> [UInt8] {
            var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
            bytes += [0x21, 0xFE, 3] + Array("hi!".utf8) + [0]   // a comment before it
            if let loop { bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(loop & 0xFF), UInt8(loop >> 8), 0] }
            return bytes + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]
        }
        #expect(AnimationPlays.ofGIF(gif(loop: 0)) == .forever)
        #expect(AnimationPlays.ofGIF(gif(loop: 1)) == .times(2), "the loop count repeats after the first play")
        #expect(AnimationPlays.ofGIF(gif(loop: 300)) == .times(301))
        #expect(AnimationPlays.ofGIF(gif(loop: nil)) == .times(1), "no Netscape block: it plays once")
        #expect(AnimationPlays.ofGIF(Array("GIF89a".utf8)) == .forever, "cut short: the loop asked for")
        #expect(AnimationPlays.ofGIF(Array("not a gif at all".utf8)) == .forever)
        // PNG: IHDR, then acTL (frames, plays).
        func png(plays: UInt32?) -> [UInt8] {
            var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            bytes += [0, 0, 0, 13] + Array("IHDR".utf8) + [UInt8](repeating: 0, count: 13) + [0, 0, 0, 0]
            if let plays {
                bytes += [0, 0, 0, 8] + Array("acTL".utf8) + [0, 0, 0, 10]
                bytes += [UInt8(plays >> 24), UInt8(plays >> 16 & 0xFF), UInt8(plays >> 8 & 0xFF), UInt8(plays & 0xFF), 0, 0, 0, 0]
            }
            return bytes + [0, 0, 0, 0] + Array("IDAT".utf8) + [0, 0, 0, 0]
        }
        #expect(AnimationPlays.ofPNG(png(plays: 0)) == .forever)
        #expect(AnimationPlays.ofPNG(png(plays: 3)) == .times(3), "num_plays counts the plays")
        #expect(AnimationPlays.ofPNG(png(plays: nil)) == .forever)
        #expect(AnimationPlays.ofWebP(loopCount: 0) == .forever && AnimationPlays.ofWebP(loopCount: 2) == .times(2))
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
