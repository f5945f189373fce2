import Testing
@testable import KioskCore

/// The engine's "what plays next": the preview that prepares the next item must agree with the
/// step taken at the seam, and failures found while preparing are passed over once per pass.
@Suite struct PlaylistNavigatorTests {
    static func navigator(_ names: String..., loop: PlaybackConfig.LoopMode = .playlist) -> PlaylistNavigator {
        PlaylistNavigator(cursor: PlaylistCursor(entries: names.map { playlistEntry($0) }, loopMode: loop))
    }

    @Test func previewAnswersWhatAdvanceWillWithoutMoving() {
        var navigator = Self.navigator("a", "b", "c")
        _ = navigator.advance()
        let before = navigator
        let preview = navigator.preview()
        #expect(navigator == before)
        #expect(preview.next == PlaylistProgram.Step(.play(1)))
        #expect(preview.entry?.media == .file("/m/b"))
        #expect(navigator.advance() == preview.next)
    }

    @Test func previewSeesASwitchWaitingForTheSeam() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        #expect(navigator.switchPlaylist(to: playlistEntries("x", "y"), when: .atSeam) == nil)
        let preview = navigator.preview()
        #expect(preview.entry?.media == .file("/m/x"))
        #expect(navigator.advance() == preview.next)
        #expect(navigator.entries.map(\.media) == [.file("/m/x"), .file("/m/y")])
    }

    /// The next pass's item failed while being prepared: the wrap does not forget it, the
    /// step passes over it to the good one, and the pass after that tries it again.
    @Test func aFailureFoundAheadIsPassedOverAcrossTheWrap() {
        var navigator = Self.navigator("a", "b")
        #expect(navigator.advance().step == .play(0))
        #expect(navigator.advance().step == .play(1))
        #expect(navigator.preview().next.step == .play(0))   // the wrap: the next pass
        navigator.noteFailedAhead(0)
        #expect(navigator.preview().next.step == .play(1))
        #expect(navigator.advance().step == .play(1))
        navigator.beganEntry()
        #expect(navigator.failedAhead.isEmpty)
        #expect(navigator.advance().step == .play(0))   // a new pass: tried again
    }

    /// A user's new list: the failures kept were the old list's indices.
    @Test func loadForgetsTheOldListsFailuresAndProgram() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        navigator.noteFailedAhead(1)
        _ = navigator.insert(playlistEntries("ad"), when: .atSeam, position: nil)
        var plain = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .playlist)
        _ = plain.advance()
        #expect(navigator.load(playlistEntries("p", "b")) == plain.replace(entries: playlistEntries("p", "b")))
        #expect(navigator.failedAhead.isEmpty)
        #expect(navigator.program == PlaylistProgram())
        // As the cursor alone answers (no insert, and "b", now index 1, not passed over).
        #expect(navigator.advance().step == plain.advance())
    }
}
