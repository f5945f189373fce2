import Testing
@testable import KioskBasics
@testable import KioskPolicy

@Suite struct HeldPictureTests {
    static func s(_ value: Double) -> MediaTime { MediaTime(seconds: value) }

    /// Interleaved picture and sound, the sound up to a second and a half ahead (an MP4's
    /// chunks, an AVI's): never held, whatever the screen shows.
    @Test func anOrdinaryFileDoesNotHoldItsPicture() {
        var held = HeldPicture()
        #expect(!held.holds(isCover: false, shown: nil))
        for step in 0..<100 {
            let t = Double(step) * 0.04
            held.notePicture(end: Self.s(t + 0.04))
            held.noteSound(end: Self.s(t + 1.5))
            #expect(!held.soundOutruns(isCover: false))
            #expect(!held.holds(isCover: false, shown: Self.s(t)))
        }
    }

    /// The picture ended at 2 s; the sound is demuxed on: it outruns the picture once it is
    /// `lead` past it, and the picture holds once the screen shows its last frames.
    @Test func soundPastTheLastPictureHoldsItOnceItsLastFramesAreUp() {
        var held = HeldPicture()
        held.notePicture(end: Self.s(2))
        held.notePicture(end: Self.s(1.92))   // a B-frame's packet ends behind the furthest
        held.noteSound(end: Self.s(3.9))
        #expect(!held.soundOutruns(isCover: false))
        held.noteSound(end: Self.s(4.1))
        #expect(held.soundOutruns(isCover: false))
        #expect(held.pictureEnd == Self.s(2))
        // The decoder still has frames to deliver before the picture's end: not held.
        #expect(!held.holds(isCover: false, shown: Self.s(1.2)))
        #expect(!held.holds(isCover: false, shown: nil))
        #expect(held.holds(isCover: false, shown: Self.s(1.96)))
        // Picture again (a gap in the middle of a file): no longer held.
        held.notePicture(end: Self.s(4.2))
        #expect(!held.soundOutruns(isCover: false))
    }

    /// A cover is held as soon as sound comes, whatever is shown; a seek starts afresh.
    @Test func aCoverIsHeldOnceSoundComesAndASeekStartsAfresh() {
        var held = HeldPicture()
        #expect(!held.holds(isCover: true, shown: nil))
        held.noteSound(end: Self.s(0.026))
        #expect(held.holds(isCover: true, shown: nil))
        held.restart()
        #expect(!held.holds(isCover: true, shown: .zero))
        #expect(held.pictureEnd == nil && held.soundEnd == nil)
    }

    /// After a seek, sound before any picture (a file interleaved sound first) does not
    /// outrun it until `lead` of it has come with no picture at all (a seek into the sound
    /// after the picture's end); the sound's end is the furthest packet's.
    @Test func noPictureSinceTheSeekNeedsALeadOfSound() {
        var held = HeldPicture()
        held.noteSound(end: Self.s(20.5))
        #expect(!held.soundOutruns(isCover: false))
        held.noteSound(end: Self.s(22.6))
        #expect(held.soundOutruns(isCover: false))
        held.noteSound(end: Self.s(22.58))
        #expect(held.soundEnd == Self.s(22.6))
    }
}
