import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `count` natural ends in a row: what the engine sees when nothing fails.
private func play(_ cursor: inout PlaylistCursor, _ count: Int) -> [PlaylistStep] {
    (0..<count).map { _ in cursor.advance() }
}

private let retry1s = PlaylistStep.nothingPlayable(retryAfter: MediaTime(value: 1, timescale: 1))
private let retry2s = PlaylistStep.nothingPlayable(retryAfter: MediaTime(value: 2, timescale: 1))

@Suite("Playlist cursor")
struct PlaylistCursorTests {
    @Test func noneModePlaysOnceThenFinishes() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .none)
        #expect(play(&cursor, 5) == [.play(0), .play(1), .play(2), .finished, .finished])
        #expect(cursor.isFinished)
        #expect(cursor.next() == .finished)
    }

    @Test func itemModeRepeatsTheCurrentItem() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .item)
        #expect(play(&cursor, 4) == [.play(0), .play(0), .play(0), .play(0)])
        #expect(cursor.next() == .play(1))
        #expect(play(&cursor, 2) == [.play(1), .play(1)])
        #expect(cursor.next() == .play(0))    // a skip wraps around in item mode too
    }

    @Test func playlistModeWraps() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(play(&cursor, 7) == [.play(0), .play(1), .play(2), .play(0), .play(1), .play(2), .play(0)])
    }

    @Test func perItemLoopCount() {
        var cursor = PlaylistCursor(entries: [playlistEntry("a", loop: 3), playlistEntry("b"), playlistEntry("c", loop: 2)], loopMode: .none)
        #expect(play(&cursor, 7) == [.play(0), .play(0), .play(0), .play(1), .play(2), .play(2), .finished])
    }

    @Test func aJoinIntoALaterPlayOfARepeatedEntryLeavesOnlyThePlaysAfterIt() {
        // A synchronised player joining the timeline in the second of `loop: 2`'s plays plays it
        // to its end, then the next entry (it played it once too often before).
        var cursor = PlaylistCursor(entries: [playlistEntry("a"), playlistEntry("b", loop: 2), playlistEntry("c")], loopMode: .playlist)
        #expect(cursor.jump(to: 1, play: 1) == .play(1))
        #expect(play(&cursor, 3) == [.play(2), .play(0), .play(1)])
        #expect(cursor.jump(to: 1, play: 0) == .play(1))
        #expect(play(&cursor, 2) == [.play(1), .play(2)])
        // Already on the entry, told it is in its second play; a play past the count is its last.
        #expect(cursor.jump(to: 1) == .play(1))
        cursor.setPlayOfCurrent(1)
        #expect(cursor.advance() == .play(2))
        #expect(cursor.jump(to: 1, play: 7) == .play(1))
        #expect(cursor.advance() == .play(2))
    }

    @Test func userSkipIgnoresTheLoopCount() {
        var cursor = PlaylistCursor(entries: [playlistEntry("a", loop: 5), playlistEntry("b")], loopMode: .playlist)
        #expect(cursor.advance() == .play(0))
        #expect(cursor.advance() == .play(0))
        #expect(cursor.next() == .play(1))
        #expect(cursor.next() == .play(0))
        #expect(cursor.playsOfCurrent == 1)   // counting starts afresh after a skip
        #expect(play(&cursor, 5) == [.play(0), .play(0), .play(0), .play(0), .play(1)])
    }

    @Test func previousWrapsOrRestarts() {
        var looping = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(looping.advance() == .play(0))
        #expect(looping.previous() == .play(2))
        #expect(looping.previous() == .play(1))
        var once = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .none)
        #expect(once.advance() == .play(0))
        #expect(once.previous() == .play(0))   // nothing before the first: restart it
        #expect(play(&once, 3) == [.play(1), .finished, .finished])
        #expect(once.previous() == .play(1))   // back from the end to the last entry
    }

    @Test func jumpPicksAnEntryAndRejectsBadIndexes() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(cursor.jump(to: 2) == .play(2))
        #expect(cursor.jump(to: 3) == nil)
        #expect(cursor.jump(to: -1) == nil)
        #expect(cursor.currentIndex == 2)
        #expect(cursor.advance() == .play(0))
    }

    @Test func failedItemsAreSkippedThisPassAndRetriedNext() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(cursor.advance() == .play(0))
        #expect(cursor.advance() == .play(1))
        cursor.markFailed(1)
        #expect(cursor.advance() == .play(2))
        #expect(cursor.failedThisPass == [1])
        #expect(cursor.advance() == .play(0))   // new pass...
        #expect(cursor.failedThisPass.isEmpty)
        #expect(cursor.advance() == .play(1))   // ...so b is tried again
        #expect(cursor.next() == .play(2))
        cursor.markFailed(2)
        #expect(cursor.previous() == .play(1))
    }

    @Test func failedEntriesAreSkippedByUserSkipsToo() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(cursor.jump(to: 1) == .play(1))
        cursor.markFailed(1)
        #expect(cursor.advance() == .play(2))
        #expect(cursor.previous() == .play(0))   // b is skipped going back
        #expect(cursor.jump(to: 1) == .play(1))  // but the user may still ask for it
        #expect(cursor.failedThisPass.isEmpty)
    }

    @Test func allFailedReportsNothingPlayableWithBackoff() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .playlist)
        for (pass, expected) in [retry1s, retry2s].enumerated() {
            #expect(cursor.advance() == .play(0), "pass \(pass)")
            cursor.markFailed(0)
            #expect(cursor.advance() == .play(1))
            cursor.markFailed(1)
            #expect(cursor.advance() == expected)
            #expect(cursor.currentIndex == nil)
        }
        #expect(cursor.failedPassesInARow == 2)
        #expect(cursor.advance() == .play(0))   // the next retry: a works again
        #expect(cursor.advance() == .play(1))
        #expect(cursor.failedPassesInARow == 0)
    }

    @Test func itemModeMovesOnFromAFailedItem() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .item)
        #expect(cursor.advance() == .play(0))
        cursor.markFailed(0)
        #expect(play(&cursor, 3) == [.play(1), .play(1), .play(1)])
        cursor.markFailed(1)
        #expect(cursor.advance() == .play(0))   // wrapped: a new pass retries a
        cursor.markFailed(0)
        #expect(cursor.advance() == .play(1))
        cursor.markFailed(1)
        #expect(cursor.advance() == retry1s)
    }

    @Test func noneModeWithEveryItemFailingRetriesInsteadOfFinishing() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b"), loopMode: .none)
        #expect(cursor.advance() == .play(0))
        cursor.markFailed(0)
        #expect(cursor.advance() == .play(1))
        cursor.markFailed(1)
        #expect(cursor.advance() == retry1s)
        #expect(cursor.advance() == .play(0))
        cursor.markFailed(0)
        #expect(cursor.advance() == .play(1))
        #expect(cursor.advance() == .finished)   // b played: the single pass is over
    }

    @Test func emptyPlaylistIsNothingPlayable() {
        var cursor = PlaylistCursor(entries: [], loopMode: .playlist)
        #expect(cursor.advance() == retry1s)
        #expect(cursor.next() == retry2s)
        #expect(cursor.previous() == .nothingPlayable(retryAfter: MediaTime(value: 4, timescale: 1)))
    }

    @Test func replaceKeepsTheCurrentItem() {
        var cursor = PlaylistCursor(entries: [playlistEntry("a"), playlistEntry("b", loop: 3), playlistEntry("c")], loopMode: .playlist)
        #expect(cursor.advance() == .play(0))
        #expect(cursor.advance() == .play(1))
        #expect(cursor.advance() == .play(1))
        cursor.markFailed(2)
        #expect(cursor.replace(entries: [playlistEntry("new"), playlistEntry("a"), playlistEntry("b", loop: 3), playlistEntry("c")]) == .keptCurrent(2))
        #expect(cursor.currentIndex == 2)
        #expect(cursor.failedThisPass.isEmpty)
        #expect(play(&cursor, 3) == [.play(2), .play(3), .play(0)])   // b's third play, then on
    }

    @Test func replaceMatchesTheSameOccurrenceOfARepeatedFile() {
        var cursor = PlaylistCursor(entries: playlistEntries("ad", "x", "ad", "y"), loopMode: .playlist)
        #expect(cursor.jump(to: 2) == .play(2))
        #expect(cursor.replace(entries: playlistEntries("ad", "y", "ad")) == .keptCurrent(2))
        #expect(cursor.replace(entries: playlistEntries("z", "ad")) == .keptCurrent(1))
    }

    @Test func replaceWithoutTheCurrentItemPlaysWhatTookItsPlace() {
        var cursor = PlaylistCursor(entries: playlistEntries("a", "b", "c"), loopMode: .playlist)
        #expect(cursor.jump(to: 1) == .play(1))
        #expect(cursor.replace(entries: playlistEntries("a", "c", "d")) == .currentRemoved)
        #expect(cursor.advance() == .play(1))
        #expect(cursor.jump(to: 2) == .play(2))
        #expect(cursor.replace(entries: playlistEntries("a")) == .currentRemoved)
        #expect(cursor.advance() == .play(0))   // past the end: wraps
        var fresh = PlaylistCursor(entries: playlistEntries("a"), loopMode: .none)
        #expect(fresh.replace(entries: playlistEntries("b")) == .notStarted)
        #expect(fresh.advance() == .play(0))
        #expect(fresh.advance() == .finished)
        #expect(fresh.replace(entries: playlistEntries("c", "d")) == .notStarted)   // a finished list starts over
        #expect(fresh.advance() == .play(0))
    }

    @Test(arguments: [(0, 0.0), (1, 1.0), (2, 2.0), (3, 4.0), (5, 16.0), (6, 30.0), (7, 30.0), (1000, 30.0), (Int.max, 30.0)])
    func backoffDoublesUpToTheCap(_ failures: Int, _ seconds: Double) {
        #expect(RetryBackoff.standard.delay(afterFailures: failures).seconds == seconds)
    }

    @Test func backoffWithOtherBounds() {
        let backoff = RetryBackoff(initial: MediaTime(value: 1, timescale: 4), maximum: MediaTime(value: 1, timescale: 1))
        #expect((1...5).map { backoff.delay(afterFailures: $0).seconds } == [0.25, 0.5, 1, 1, 1])
    }
}
