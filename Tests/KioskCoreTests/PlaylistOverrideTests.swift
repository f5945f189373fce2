import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPolicy

private func seconds(_ value: Int64) -> MediaTime { MediaTime(value: value, timescale: 1) }

/// Overrides in the playlist program and the navigator: the override's entries loop until it
/// ends, the loop comes back where it was, and nothing else takes the screen meanwhile.
@Suite("Playlist program: overrides")
struct PlaylistOverrideTests {
    private static func navigator(_ names: String...) -> PlaylistNavigator {
        PlaylistNavigator(cursor: PlaylistCursor(entries: names.map { playlistEntry($0) }, loopMode: .playlist))
    }

    private func name(_ navigator: PlaylistNavigator, _ step: PlaylistStep?) -> String? {
        guard case .play(let index)? = step else { return nil }
        return navigator.entries[index].media.description.replacingOccurrences(of: "/m/", with: "")
    }

    /// `count` item ends in a row: the names played, "@s" where an entry resumes at s seconds.
    private func ends(_ navigator: inout PlaylistNavigator, _ count: Int) -> [String] {
        (0..<count).map { _ in
            let next = navigator.advance()
            let text = name(navigator, next.step) ?? "?"
            return next.resumeAt.map { text + "@\($0.seconds)" } ?? text
        }
    }

    private func begun(_ answer: PlaylistAnswer, in navigator: PlaylistNavigator) -> String? {
        switch answer {
        case .programChanged(let step?): name(navigator, step)
        case .begin(let step): (name(navigator, step.step) ?? "?") + (step.resumeAt.map { "@\($0.seconds)" } ?? "")
        default: nil
        }
    }

    @Test func anOverrideLoopsUntilItEndsThenTheLoopResumesWhereItWas() {
        var navigator = Self.navigator("a", "b", "c")
        #expect(ends(&navigator, 2) == ["a", "b"])
        let shown = navigator.answer(.showOverride(name: "fire", entries: playlistEntries("x", "y")), position: seconds(7), displayOff: false)
        #expect(begun(shown, in: navigator) == "x")
        #expect(ends(&navigator, 3) == ["y", "x", "y"], "the override loops")
        #expect(begun(navigator.answer(.endOverride(), position: seconds(1), displayOff: false), in: navigator) == "b@7.0")
        #expect(ends(&navigator, 2) == ["c", "a"])
        #expect(navigator.answer(.endOverride(), position: nil, displayOff: false) == .refused("no override is on screen"))
    }

    @Test func aSecondOverrideTakesThePlaceOfTheFirstAndTheLoopStaysTheOneInterrupted() {
        var navigator = Self.navigator("a", "b")
        _ = ends(&navigator, 1)
        _ = navigator.answer(.showOverride(name: "promo", entries: playlistEntries("p")), position: seconds(3), displayOff: false)
        let fire = navigator.answer(.showOverride(name: "fire", entries: playlistEntries("f")), position: seconds(1), displayOff: false)
        #expect(begun(fire, in: navigator) == "f")
        #expect(navigator.program.playingOverride == "fire")
        #expect(begun(navigator.answer(.endOverride(), position: nil, displayOff: false), in: navigator) == "a@3.0")
    }

    @Test func anOverrideEndsAnInsertOrTriggerAndTheLoopThatWasInterruptedComesBack() {
        var navigator = Self.navigator("a", "b")
        _ = ends(&navigator, 1)
        let trigger = TriggerPlay(name: "button", then: .restart)
        _ = navigator.answer(.playOnce(.entries(playlistEntries("t1", "t2")), when: .now, trigger: trigger), position: seconds(4),
                             displayOff: false)
        _ = navigator.answer(.showOverride(name: "fire", entries: playlistEntries("f")), position: seconds(1), displayOff: false)
        #expect(navigator.program.playingTrigger == nil)
        #expect(begun(navigator.answer(.endOverride(), position: nil, displayOff: false), in: navigator) == "a@4.0",
                "the trigger's rest is dropped, and so is its restart: the loop resumes")
    }

    @Test func whileAnOverrideIsOnUsersAndTriggersAreRefusedInsertsWait() {
        var navigator = Self.navigator("a", "b")
        _ = ends(&navigator, 1)
        _ = navigator.answer(.showOverride(name: "fire", entries: playlistEntries("f")), position: seconds(2), displayOff: false)
        // Said in the control socket's words, not the request's Swift name.
        for (request, said) in [(PlayerRequest.nextItem, "next"), (.previousItem, "previous"), (.goto(index: 1), "goto 1"),
                                (.load(playlistEntries("z")), "load"),
                                (.playOnce(.entries(playlistEntries("t")), when: .now, trigger: TriggerPlay(name: "button")), "trigger 'button'")] {
            #expect(navigator.answer(request, position: nil, displayOff: false)
                    == .refused("override 'fire' is on screen: \(said) is not carried out"))
        }
        #expect(navigator.answer(.playOnce(.entries(playlistEntries("ad")), when: .now), position: seconds(1), displayOff: false)
                == .programChanged(beginNow: nil), "an insert waits")
        #expect(ends(&navigator, 2) == ["f", "f"], "not into the override's loop")
        _ = navigator.answer(.switchPlaylist(playlistEntries("x", "y"), when: .now), position: nil, displayOff: false)
        #expect(begun(navigator.answer(.endOverride(), position: nil, displayOff: false), in: navigator) == "ad",
                "the insert that waited plays first, then the switched list")
        #expect(ends(&navigator, 2) == ["x", "y"])
    }

    @Test func anOverrideBegunOrEndedInTheDarkIsWhatTheScreenShowsWhenOn() {
        var navigator = Self.navigator("a", "b")
        _ = ends(&navigator, 2)   // b plays when the screen goes dark
        #expect(navigator.answer(.showOverride(name: "fire", entries: []), position: nil, displayOff: false)
                == .refused("override 'fire' has nothing to play"))
        // Taken in the dark (the desk took it): its first entry is what comes on.
        #expect(navigator.answer(.showOverride(name: "fire", entries: playlistEntries("f")), position: seconds(15), displayOff: true)
                == .resumeWhenOn(PlaylistProgram.Step(.play(0))))
        #expect(navigator.program.playingOverride == "fire")
        // Ended in the dark: b, where the dark found it, not the override looping on for good.
        #expect(navigator.answer(.endOverride(), position: seconds(15), displayOff: true)
                == .resumeWhenOn(PlaylistProgram.Step(.play(1), resumeAt: seconds(15))))
        #expect(navigator.program.playingOverride == nil)
        #expect(navigator.answer(.endOverride(), position: nil, displayOff: true) == .refused("no override is on screen"))
    }
}
