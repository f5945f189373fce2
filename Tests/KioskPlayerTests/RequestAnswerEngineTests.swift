import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// `QueuePlayer.perform`: a request answered by the part of the engine that decides it (the
/// navigator, the state machine, the shared timeline, the layers), which is what the control
/// socket and MQTT reply; no copy of those checks sits in front of the engine.
@Suite(.serialized) struct RequestAnswerEngineTests {
    static func player(_ entries: [PlaylistEntry], settings: PlayerSettings = PlayerSettings()) throws -> QueuePlayer {
        try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                        playlist: PlaylistCursor(entries: entries, loopMode: .playlist),
                        settings: settings, logger: CapturedLog().logger)
    }

    @Test func theNavigatorsRefusalComesBackAndACarriedOutRequestAnswersNil() throws {
        // Long enough that a slow machine is still in `a` when the refusals are checked.
        let a = try PlaylistProgramEngineTests.entry("answer-a.mp4", seconds: 30)
        let b = try PlaylistProgramEngineTests.entry("answer-b.mp4", seconds: 4)
        let player = try Self.player([a, b])
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(20) { player.currentTime.seconds > 0.2 }, "a plays")
        #expect(player.perform(.goto(index: 2)) == PlayerRefusal("no item 2: the playlist has 2 items, counted from 0"))
        #expect(player.perform(.playOnce(.entry(index: 5), when: .now, trigger: nil))
                == PlayerRefusal("no item 5: the playlist has 2 items, counted from 0"))
        #expect(player.currentItemIndex == 0, "a refused goto changes nothing")
        #expect(player.perform(.goto(index: 1)) == nil)
        #expect(waitUntil(20) { player.currentItemIndex == 1 }, "the goto carried out")
        #expect(player.perform(.setVolume(40)) == nil)
        #expect(player.volume == 40, "answered after it was carried out: the snapshot has it")
    }

    @Test func aSynchronisedPlayerRefusesWhatTheTimelineDecides() throws {
        let a = try PlaylistProgramEngineTests.entry("answer-sync.mp4", seconds: 4)
        var settings = PlayerSettings()
        settings.sync = SyncConfig(epoch: 1_767_225_600_000_000_000)
        let player = try Self.player([a], settings: settings)
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(20) { player.currentTime.seconds > 0.2 }, "a plays")
        let refusal = "refused on a synchronised player: the shared timeline (sync.epoch) decides the item and position"
        #expect(player.perform(.seek(to: MediaTime(value: 1, timescale: 1))) == PlayerRefusal(refusal))
        #expect(player.perform(.nextItem) == PlayerRefusal(refusal))
        #expect(player.perform(.pause) == nil, "pausing stays with the box")
    }

    @Test func aLayerChangeWithoutLayersIsRefusedByTheScreen() throws {
        let a = try PlaylistProgramEngineTests.entry("answer-layer.mp4", seconds: 4)
        let player = try Self.player([a])
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(20) { player.currentTime.seconds > 0.2 }, "a plays")
        #expect(player.perform(.layer(name: "logo", .hide)) == PlayerRefusal("kiosk.conf has no layers"))
    }

    @Test func beforePlaybackStartsOrAfterItEndsNobodyIsWaitedFor() throws {
        let a = try PlaylistProgramEngineTests.entry("answer-idle.mp4", seconds: 4)
        let player = try Self.player([a])
        // A wait that timed out would answer "did not answer": nil says nobody was waited for.
        #expect(player.perform(.setVolume(30), timeout: 30) == nil, "taken for when playback starts")
        player.start()
        #expect(waitUntil(20) { player.volume == 30 }, "the waiting request carried out at the start")
        #expect(player.stop(timeout: 20))
        #expect(player.perform(.setVolume(20), timeout: 30) == nil, "after the end: not waited for")
    }
}
