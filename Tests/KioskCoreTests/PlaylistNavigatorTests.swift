import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

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

    /// A watched folder's file deleted as it was prepared, the folder emptied, then a new file:
    /// the new file stands at the failed index and must play (the bed saw it passed over at
    /// every retry before the reload forgot the failures found ahead).
    @Test func aReloadForgetsTheFailuresFoundAhead() {
        var navigator = Self.navigator("b")
        _ = navigator.advance()
        navigator.noteFailedAhead(0)
        #expect(navigator.replaceLoopEntries([]) == .currentRemoved)
        if case .nothingPlayable = navigator.advance().step {} else { Issue.record("an empty list plays nothing") }
        #expect(navigator.replaceLoopEntries(playlistEntries("c")) == .notStarted)
        #expect(navigator.failedAhead.isEmpty)
        #expect(navigator.advance().step == .play(0))
    }

    // MARK: Requests

    @Test func movesThroughThePlaylistAnswerAStepToBegin() {
        var navigator = Self.navigator("a", "b", "c")
        _ = navigator.advance()
        #expect(navigator.answer(.nextItem, position: nil, displayOff: false) == .begin(PlaylistProgram.Step(.play(1))))
        #expect(navigator.answer(.goto(index: 2), position: nil, displayOff: false) == .begin(PlaylistProgram.Step(.play(2))))
        #expect(navigator.answer(.previousItem, position: nil, displayOff: false) == .begin(PlaylistProgram.Step(.play(1))))
        #expect(navigator.answer(.goto(index: 7), position: nil, displayOff: false) == .refused("no item 7: the playlist has 3 items, counted from 0"))
        // A position opens the entry there (the engine seeks before its first frame); 0 is its start.
        #expect(navigator.answer(.goto(index: 0, at: MediaTime(seconds: 30)), position: nil, displayOff: false)
            == .begin(PlaylistProgram.Step(.play(0), resumeAt: MediaTime(seconds: 30))))
        #expect(navigator.answer(.goto(index: 1, at: .zero), position: nil, displayOff: false) == .begin(PlaylistProgram.Step(.play(1))))
        #expect(navigator.currentIndex == 1)
    }

    /// `play_item_once 1 now` while entry 0 plays at 4 s: entry 1 begins, then 0 resumes at 4 s.
    @Test func playOnceNowInsertsTheLoopsEntryAndResumesWhereItWas() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        let at = MediaTime(value: 4, timescale: 1)
        #expect(navigator.answer(.playOnce(.entry(index: 1), when: .now), position: at, displayOff: false)
                == .programChanged(beginNow: .play(0)))
        #expect(navigator.entries.map(\.media) == [.file("/m/b")])
        #expect(navigator.advance() == PlaylistProgram.Step(.play(0), resumeAt: at))
        #expect(navigator.entries.map(\.media) == [.file("/m/a"), .file("/m/b")])
    }

    @Test func aSwitchAtTheSeamChangesWhatFollowsButBeginsNothing() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        #expect(navigator.answer(.switchPlaylist(playlistEntries("x"), when: .atSeam), position: nil, displayOff: false)
                == .programChanged(beginNow: nil))
        #expect(navigator.preview().entry?.media == .file("/m/x"))
        #expect(navigator.answer(.playOnce(.entry(index: 5), when: .now), position: nil, displayOff: false)
                == .refused("no item 5: the playlist has 2 items, counted from 0"))
    }

    /// While the screen is dark nothing begins: a switch or an insert of its own waits for it
    /// to come on, a user's move is refused, display power always gets through.
    @Test func whileTheDisplayIsOffOnlyTheProgramChanges() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        #expect(navigator.answer(.nextItem, position: nil, displayOff: true)
                == .refused("the display is off: next is not carried out"))
        guard case .refused(let line) = navigator.answer(.playOnce(.entry(index: 1), when: .now), position: nil, displayOff: true) else {
            Issue.record("an entry to play once is refused while the display is off")
            return
        }
        #expect(line == "the display is off: play_item_once is not played", "\(line)")
        #expect(navigator.answer(.switchPlaylist(playlistEntries("x"), when: .now), position: nil, displayOff: true) == .deferred)
        #expect(navigator.program.pendingSwitch?.entries.map(\.media) == [.file("/m/x")])
        #expect(navigator.currentIndex == 0)
        #expect(navigator.answer(.setDisplayPower(on: true), position: nil, displayOff: true) == .setDisplayPower(on: true))
    }

    @Test func loadAnswersWhatBecameOfTheEntryPlaying() {
        var navigator = Self.navigator("a", "b")
        _ = navigator.advance()
        #expect(navigator.answer(.load(playlistEntries("q", "a")), position: nil, displayOff: false) == .loaded(.keptCurrent(1)))
    }
}
