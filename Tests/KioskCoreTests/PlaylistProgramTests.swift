import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func seconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1) }

/// The engine's side of the program, as names: what each item change plays.
private struct Engine {
    var cursor: PlaylistCursor
    var program = PlaylistProgram()

    init(_ names: String..., loop: PlaybackConfig.LoopMode = .playlist) {
        cursor = PlaylistCursor(entries: names.flatMap { playlistEntries($0) }, loopMode: loop)
    }

    func name(_ step: PlaylistStep?) -> String? {
        guard case .play(let index)? = step else { return step.map { "\($0)" } }
        return cursor.entries[index].media.description.replacingOccurrences(of: "/m/", with: "")
    }

    /// `count` item ends in a row: the names played, "@s" where an entry resumes at s seconds.
    mutating func ends(_ count: Int) -> [String] {
        (0..<count).map { _ in
            let next = program.step(&cursor)
            let text = name(next.step) ?? "?"
            return next.resumeAt.map { text + "@\($0.seconds)" } ?? text
        }
    }

    mutating func skip() -> String? {
        let next = program.step(&cursor) { $0.next() }
        return name(next.step)   // named in the cursor the step left (it may have swapped it)
    }
}

@Suite("Playlist program: switches and inserts")
struct PlaylistProgramTests {
    @Test func withNothingAskedTheCursorDecides() {
        var engine = Engine("a", "b")
        #expect(engine.ends(5) == ["a", "b", "a", "b", "a"])
        #expect(!engine.program.isPlayingInsert)
    }

    @Test func aSwitchAtTheSeamWaitsForTheItemToEnd() {
        var engine = Engine("a", "b", "c")
        #expect(engine.ends(2) == ["a", "b"])
        let now = engine.program.switchPlaylist(to: playlistEntries("x", "y"), when: .atSeam, cursor: &engine.cursor)
        #expect(now == nil)
        #expect(engine.name(.play(engine.cursor.currentIndex!)) == "b", "b plays on")
        #expect(engine.ends(4) == ["x", "y", "x", "y"])
    }

    @Test func aSwitchAtTheSeamIsTakenByAUsersSkipToo() {
        var engine = Engine("a", "b", "c")
        _ = engine.ends(1)
        _ = engine.program.switchPlaylist(to: playlistEntries("x", "y"), when: .atSeam, cursor: &engine.cursor)
        #expect(engine.skip() == "x")
        #expect(engine.ends(1) == ["y"])
    }

    @Test func aSwitchNowBeginsTheNewListAtOnce() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        let now = engine.program.switchPlaylist(to: playlistEntries("x", "y"), when: .now, cursor: &engine.cursor)
        #expect(engine.name(now) == "x")
        #expect(engine.ends(2) == ["y", "x"])
    }

    @Test func aLaterSwitchReplacesOneThatWaits() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.switchPlaylist(to: playlistEntries("x"), when: .atSeam, cursor: &engine.cursor)
        _ = engine.program.switchPlaylist(to: playlistEntries("z"), when: .atSeam, cursor: &engine.cursor)
        #expect(engine.ends(2) == ["z", "z"])
    }

    @Test func anInsertNowInterruptsAndTheItemResumesWhereItWas() {
        var engine = Engine("a", "b", "c")
        #expect(engine.ends(2) == ["a", "b"])
        let now = engine.program.insert(playlistEntries("ad1", "ad2"), when: .now, position: seconds(7), cursor: &engine.cursor)
        #expect(engine.name(now) == "ad1")
        #expect(engine.program.isPlayingInsert)
        #expect(engine.ends(3) == ["ad2", "b@7.0", "c"])
        #expect(!engine.program.isPlayingInsert)
    }

    @Test func anInsertAtTheSeamPlaysAfterTheItemThenTheLoopGoesOn() {
        var engine = Engine("a", "b", "c")
        _ = engine.ends(1)
        #expect(engine.program.insert(playlistEntries("ad"), when: .atSeam, position: seconds(3), cursor: &engine.cursor) == nil)
        #expect(engine.ends(4) == ["ad", "b", "c", "a"])
    }

    @Test func aSkipDuringTheInsertsLastEntryEndsIt() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.insert(playlistEntries("ad"), when: .now, position: seconds(2), cursor: &engine.cursor)
        #expect(engine.skip() == "a")
        #expect(engine.ends(1) == ["b"])
    }

    @Test func anInsertNobodyCanPlayGivesTheLoopBack() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        let now = engine.program.insert(playlistEntries("bad"), when: .now, position: seconds(4), cursor: &engine.cursor)
        #expect(engine.name(now) == "bad")
        engine.cursor.markFailed(0)
        #expect(engine.ends(2) == ["a@4.0", "b"])
    }

    @Test func aSwitchDuringAnInsertReplacesTheLoopItReturnsTo() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.insert(playlistEntries("ad"), when: .now, position: seconds(4), cursor: &engine.cursor)
        let now = engine.program.switchPlaylist(to: playlistEntries("x", "y"), when: .now, cursor: &engine.cursor)
        #expect(now == nil, "the insert plays to its end")
        #expect(engine.ends(3) == ["x", "y", "x"])
    }

    @Test func aSecondInsertQueuesBehindTheFirst() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.insert(playlistEntries("ad1"), when: .now, position: seconds(1), cursor: &engine.cursor)
        #expect(engine.program.insert(playlistEntries("ad2"), when: .now, position: seconds(0), cursor: &engine.cursor) == nil)
        #expect(engine.ends(3) == ["ad2", "a@1.0", "b"])
    }

    @Test func anInsertAtTheSeamWithASwitchWaitingPlaysBeforeTheNewList() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.switchPlaylist(to: playlistEntries("x"), when: .atSeam, cursor: &engine.cursor)
        _ = engine.program.insert(playlistEntries("ad"), when: .atSeam, position: nil, cursor: &engine.cursor)
        #expect(engine.ends(3) == ["ad", "x", "x"])
    }

    @Test func anInsertBeforeAnythingPlayedStartsTheLoopAfterwards() {
        var engine = Engine("a", "b")
        let now = engine.program.insert(playlistEntries("ad"), when: .now, position: seconds(5), cursor: &engine.cursor)
        #expect(engine.name(now) == "ad")
        #expect(engine.ends(2) == ["a", "b"], "nothing to resume: the loop starts at its first entry")
    }

    @Test func aReloadDuringAnInsertChangesTheLoopNotTheInsert() {
        var engine = Engine("a", "b")
        _ = engine.ends(2)
        _ = engine.program.insert(playlistEntries("ad", "ad2"), when: .now, position: seconds(6), cursor: &engine.cursor)
        #expect(engine.program.replaceLoopEntries(playlistEntries("b", "c"), cursor: &engine.cursor) == nil)
        engine.program.setLoopMode(.item, cursor: &engine.cursor)
        #expect(engine.cursor.loopMode == .none, "an insert plays once")
        #expect(engine.program.loopEntries(engine.cursor).count == 2)
        #expect(engine.ends(3) == ["ad2", "b@6.0", "b"], "b kept (at its new index) and now loops as an item")
    }

    @Test func aReloadThatRemovesTheInterruptedItemDropsItsPosition() {
        var engine = Engine("a", "b", "c")
        _ = engine.ends(2)
        _ = engine.program.insert(playlistEntries("ad"), when: .now, position: seconds(6), cursor: &engine.cursor)
        _ = engine.program.replaceLoopEntries(playlistEntries("a", "c"), cursor: &engine.cursor)
        #expect(engine.ends(2) == ["c", "a"], "what moved into b's place plays next")
    }

    @Test func aReloadWithoutAnInsertIsTheCursorsOwn() {
        var engine = Engine("a", "b")
        _ = engine.ends(2)
        #expect(engine.program.replaceLoopEntries(playlistEntries("b", "c"), cursor: &engine.cursor) == .keptCurrent(0))
    }

    @Test func resetEndsTheInsertAndDropsWhatWaits() {
        var engine = Engine("a", "b")
        _ = engine.ends(1)
        _ = engine.program.switchPlaylist(to: playlistEntries("x"), when: .atSeam, cursor: &engine.cursor)
        _ = engine.program.insert(playlistEntries("ad"), when: .atSeam, position: nil, cursor: &engine.cursor)
        engine.program.reset(cursor: &engine.cursor)
        #expect(engine.ends(2) == ["b", "a"])
    }
}
