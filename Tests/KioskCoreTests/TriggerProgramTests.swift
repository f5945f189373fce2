import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// What a trigger does to the playlist, decided by `PlaylistNavigator.answer` (the engine acts
/// on the answer and asks `advance()` at every item change, as these tests do).

private func seconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1) }

private func fire(_ names: String..., trigger name: String = "t", then: TriggerPlay.Return = .resume,
                  during: TriggerPlay.Overlap = .replace) -> PlayerRequest {
    .playOnce(.entries(names.flatMap { playlistEntries($0) }), when: .now,
              trigger: TriggerPlay(name: name, then: then, duringTrigger: during))
}

/// A navigator over `names` and the names it plays, with the position of a resumed entry.
private struct Loop {
    var navigator: PlaylistNavigator

    init(_ names: String...) {
        navigator = PlaylistNavigator(cursor: PlaylistCursor(entries: names.flatMap { playlistEntries($0) }, loopMode: .playlist))
    }

    func name(_ index: Int) -> String { navigator.entries[index].media.description.replacingOccurrences(of: "/m/", with: "") }

    /// What begins at once for `request` ("-" when nothing does), or the refusal.
    mutating func send(_ request: PlayerRequest, at position: MediaTime? = nil, displayOff: Bool = false) -> String {
        switch navigator.answer(request, position: position, displayOff: displayOff) {
        case .programChanged(let step?): if case .play(let index) = step { return name(index) } else { return "\(step)" }
        case .programChanged(nil), .deferred: return "-"
        case .refused(let line): return "refused: " + line
        default: return "other"
        }
    }

    /// `count` item ends: the names played, "@s" where an entry resumes at s seconds.
    mutating func ends(_ count: Int) -> [String] {
        (0..<count).map { _ in
            let next = navigator.advance()
            guard case .play(let index) = next.step else { return "\(next.step)" }
            return name(index) + (next.resumeAt.map { "@\($0.seconds)" } ?? "")
        }
    }
}

@Suite("Triggers in the playlist program")
struct TriggerProgramTests {
    @Test func aTriggerPlaysAtOnceThenTheLoopResumesWhereItWas() {
        var loop = Loop("a", "b", "c")
        #expect(loop.ends(2) == ["a", "b"])
        #expect(loop.send(fire("t1", "t2"), at: seconds(7)) == "t1")
        #expect(loop.navigator.program.playingTrigger?.trigger.name == "t")
        #expect(loop.ends(3) == ["t2", "b@7.0", "c"])
        #expect(loop.navigator.program.playingTrigger == nil)
    }

    @Test func thenRestartBeginsTheLoopAtItsFirstEntry() {
        var loop = Loop("a", "b", "c")
        _ = loop.ends(3)
        #expect(loop.send(fire("t1", then: .restart), at: seconds(4)) == "t1")
        #expect(loop.ends(3) == ["a", "b", "c"], "from a, not c at 4 s")
    }

    /// An entry opened ahead and found unplayable is recorded as what it would have played as:
    /// the loop's first entry after a trigger's last, not the trigger's (the program's answer
    /// for the entry playing).
    @Test func theEntryAheadPlaysAsItsTurnSays() {
        var loop = Loop("a", "b", "c")
        _ = loop.ends(3)
        #expect(loop.send(fire("t1", "t2", then: .restart), at: seconds(4)) == "t1")
        #expect(loop.navigator.previewPlayedAs(entryAt: 1)?.playedAs == .trigger("t"))
        #expect(loop.ends(1) == ["t2"])
        #expect(loop.navigator.program.playedAs(entryAt: 0) == .trigger("t"), "what the entry playing answers")
        #expect(loop.navigator.previewPlayedAs(entryAt: 0)?.playedAs == .loop, "a, the loop's, comes next")
        #expect(loop.navigator.previewPlayedAs(entryAt: 0)?.isInsert == false)
        #expect(loop.navigator.previewPlayedAs(entryAt: 2) == nil, "not the next step")
        #expect(loop.ends(1) == ["a"])
        #expect(loop.navigator.program.playedAs(entryAt: 0) == .loop)
    }

    @Test func aTriggerDuringATriggerReplacesItAndReturnsToTheFirstInterruption() {
        var loop = Loop("a", "b")
        _ = loop.ends(2)
        _ = loop.send(fire("t1", "t2", trigger: "first"), at: seconds(9))
        #expect(loop.send(fire("u1", trigger: "second"), at: seconds(2)) == "u1")
        #expect(loop.navigator.program.playingTrigger?.trigger.name == "second")
        #expect(loop.ends(2) == ["b@9.0", "a"], "t2 is dropped; b comes back where the first trigger cut it")
    }

    @Test func theNewTriggersThenDecidesTheReturn() {
        var loop = Loop("a", "b")
        _ = loop.ends(2)
        _ = loop.send(fire("t1", trigger: "first"), at: seconds(9))
        _ = loop.send(fire("u1", trigger: "second", then: .restart))
        #expect(loop.ends(2) == ["a", "b"])
    }

    @Test func aTriggerDuringATriggerIsIgnoredWhenItSaysSo() {
        var loop = Loop("a", "b")
        _ = loop.ends(1)
        _ = loop.send(fire("t1", "t2", trigger: "first"), at: seconds(3))
        #expect(loop.send(fire("u1", trigger: "second", during: .ignore))
                == "refused: trigger 'second' ignored: trigger 'first' is playing (during_trigger: ignore)")
        #expect(loop.ends(3) == ["t2", "a@3.0", "b"], "the first plays on as if nothing happened")
    }

    @Test func theSameButtonPressedAgainRestartsOrIsIgnored() {
        var replacing = Loop("a")
        _ = replacing.ends(1)
        _ = replacing.send(fire("t1", "t2"), at: seconds(1))
        _ = replacing.ends(1)
        #expect(replacing.send(fire("t1", "t2")) == "t1", "from its first entry again")
        var ignoring = Loop("a")
        _ = ignoring.ends(1)
        _ = ignoring.send(fire("t1", during: .ignore), at: seconds(1))
        #expect(ignoring.send(fire("t1", during: .ignore)).hasPrefix("refused: trigger 't' ignored"))
    }

    /// A timed insert (the schedule's) is the operator's: a trigger waits for it to end, then
    /// plays, and the loop comes back where the insert cut it.
    @Test func aTriggerDuringAScheduleInsertWaitsForItsEnd() {
        var loop = Loop("a", "b")
        _ = loop.ends(1)
        #expect(loop.send(.playOnce(.entries(playlistEntries("news1", "news2")), when: .now), at: seconds(5)) == "news1")
        #expect(loop.send(fire("t1")) == "-", "nothing begins: news1 plays on")
        #expect(loop.navigator.program.waitingTrigger?.trigger.name == "t")
        #expect(loop.ends(3) == ["news2", "t1", "a@5.0"])
    }

    @Test func aSecondTriggerWaitingReplacesTheFirstOrIsIgnored() {
        var loop = Loop("a")
        _ = loop.ends(1)
        _ = loop.send(.playOnce(.entries(playlistEntries("news")), when: .now), at: seconds(5))
        _ = loop.send(fire("t1", trigger: "first"))
        #expect(loop.send(fire("u1", trigger: "second", during: .ignore)).hasPrefix(
            "refused: trigger 'second' ignored: trigger 'first' is waiting"))
        #expect(loop.send(fire("v1", trigger: "third", then: .restart)) == "-")
        #expect(loop.ends(3) == ["v1", "a", "a"], "third replaced first; its restart begins the loop at a")
    }

    /// A timed insert queued behind a trigger is kept when another trigger replaces it.
    @Test func aScheduleInsertQueuedBehindATriggerSurvivesItsReplacement() {
        var loop = Loop("a")
        _ = loop.ends(1)
        _ = loop.send(fire("t1", "t2", trigger: "first"), at: seconds(2))
        #expect(loop.send(.playOnce(.entries(playlistEntries("news")), when: .now)) == "-")
        _ = loop.send(fire("u1", trigger: "second"))
        #expect(loop.ends(3) == ["news", "a@2.0", "a"])
    }

    /// A press at night is not kept for the morning; a timed insert still is (as before).
    @Test func whileTheDisplayIsOffATriggerIsRefused() {
        var loop = Loop("a", "b")
        _ = loop.ends(1)
        #expect(loop.send(fire("t1", trigger: "night"), displayOff: true)
                == "refused: the display is off: trigger 'night' is not played")
        #expect(loop.navigator.program.interrupted == nil && loop.navigator.program.pendingInsert.isEmpty)
        #expect(loop.send(.playOnce(.entries(playlistEntries("news")), when: .now), displayOff: true) == "-")
        #expect(loop.navigator.program.pendingInsert.map(\.media) == [.file("/m/news")])
    }

    @Test func aTriggerBeforeAnythingPlayedStartsTheLoopAfterwards() {
        var loop = Loop("a", "b")
        #expect(loop.send(fire("t1"), at: seconds(5)) == "t1")
        #expect(loop.ends(2) == ["a", "b"])
    }

    @Test func aTriggerWhoseEntriesAllFailGivesTheLoopBack() {
        var loop = Loop("a", "b")
        _ = loop.ends(1)
        _ = loop.send(fire("bad"), at: seconds(4))
        loop.navigator.markFailed(0)
        #expect(loop.ends(2) == ["a@4.0", "b"])
    }

    @Test func aTriggerOfTheLoopsOwnEntryPlaysThatEntry() {
        var loop = Loop("a", "b")
        _ = loop.ends(1)
        let request = PlayerRequest.playOnce(.entry(index: 1), when: .now, trigger: TriggerPlay(name: "t"))
        #expect(loop.send(request, at: seconds(1)) == "b")
        #expect(loop.ends(1) == ["a@1.0"])
    }

    @Test func aLoadEndsATriggerAndForgetsOneWaiting() {
        var loop = Loop("a")
        _ = loop.ends(1)
        _ = loop.send(.playOnce(.entries(playlistEntries("news")), when: .now), at: seconds(5))
        _ = loop.send(fire("t1"))
        _ = loop.navigator.answer(.load(playlistEntries("x")), position: nil, displayOff: false)
        #expect(loop.navigator.program.waitingTrigger == nil && loop.navigator.program.playingTrigger == nil)
    }

    /// A list loaded while a trigger or an insert plays loops as the loop did: the insert's
    /// cursor, which plays once, was kept, and the loaded list played once and froze for good.
    @Test func aListLoadedDuringATriggerOrAnInsertLoops() {
        for request in [fire("t1"), .playOnce(.entries(playlistEntries("news")), when: .now)] {
            var loop = Loop("a")
            _ = loop.ends(1)
            _ = loop.send(request, at: seconds(2))
            _ = loop.navigator.answer(.load(playlistEntries("x") + playlistEntries("y")), position: nil, displayOff: false)
            #expect(loop.ends(5) == ["x", "y", "x", "y", "x"], "\(request)")
        }
        // A loop that was not to loop stays so.
        var once = Loop("a")
        once.navigator.setLoopMode(.none)
        _ = once.ends(1)
        _ = once.send(fire("t1"), at: seconds(2))
        _ = once.navigator.answer(.load(playlistEntries("x")), position: nil, displayOff: false)
        #expect(once.ends(2) == ["x", "finished"])
    }

    /// The callers that were there before triggers send no trigger: their requests are the
    /// same values as ever (`play_item_once`, timed inserts).
    @Test func existingRequestsCarryNoTrigger() {
        #expect(PlayerRequest.playOnce(.entry(index: 1), when: .now) == .playOnce(.entry(index: 1), when: .now, trigger: nil))
        #expect(PlayRecorder.cause(of: .playOnce(.entry(index: 1), when: .now)) == .insert)
        #expect(PlayRecorder.cause(of: fire("t1")) == .trigger)
        #expect(InterruptionCause.trigger.rawValue == "trigger")
    }
}
