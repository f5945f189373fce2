import Testing
@testable import KioskBasics
@testable import KioskPolicy

@Suite struct HeldPictureTests {
    static func s(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    /// Interleaved picture and sound (a muxer keeps them within half a second): not held.
    @Test func anOrdinaryFileDoesNotHoldItsPicture() {
        var held = HeldPicture()
        #expect(!held.holds(isCover: false))
        for step in 0..<100 {
            let t = Double(step) * 0.04
            held.notePicture(end: Self.s(t + 0.04))
            held.noteSound(end: Self.s(t + 0.5))
            #expect(!held.holds(isCover: false))
        }
    }

    /// The picture ended at 2 s; the sound is demuxed on: held once it is a second past it.
    @Test func soundASecondPastTheLastPictureHoldsIt() {
        var held = HeldPicture()
        held.notePicture(end: Self.s(2))
        held.noteSound(end: Self.s(2.9))
        #expect(!held.holds(isCover: false))
        held.noteSound(end: Self.s(3.1))
        #expect(held.holds(isCover: false))
        // Picture again (a gap in the middle of a file): no longer held.
        held.notePicture(end: Self.s(3.2))
        #expect(!held.holds(isCover: false))
    }

    /// A cover is held as soon as sound comes, never before; a seek starts afresh.
    @Test func aCoverIsHeldOnceSoundComesAndASeekStartsAfresh() {
        var held = HeldPicture()
        #expect(!held.holds(isCover: true))
        held.noteSound(end: Self.s(0.026))
        #expect(held.holds(isCover: true))
        held.restart()
        #expect(!held.holds(isCover: true))
        #expect(held.pictureEnd == nil && held.soundEnd == nil)
    }

    /// After a seek, sound before any picture (a file interleaved sound first) is not a hold
    /// until a second of it has come with no picture at all.
    @Test func noPictureSinceTheSeekNeedsASecondOfSound() {
        var held = HeldPicture()
        held.noteSound(end: Self.s(20.5))
        #expect(!held.holds(isCover: false))
        held.noteSound(end: Self.s(21.6))
        #expect(held.holds(isCover: false))
    }
}
