import Foundation
import KioskCore
import KioskDisplay
import KioskMedia
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// One large decoder at a time across a cut (DecoderHandOff, issue 33): the item prepared after
/// a playing 1440p item creates its decoder only once the playing one decoded its end and freed
/// its own; a close or a small picture does not wait; a seek after the hand-over decodes again.
@Suite struct DecoderHandOffTests {
    /// 3 s of 2560x1440 at 10 fps: above 1080p, small enough to make in a test, longer than
    /// a handing-over item's queue holds (`ItemPipeline.handOffQueue`).
    static func largeClip() throws -> String {
        try MediaFixtures.clip("handoff-1440p.mp4", ["-f", "lavfi", "-i", "testsrc2=size=2560x1440:rate=10:duration=3",
                                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    }

    static func smallClip() throws -> String {
        try MediaFixtures.clip("handoff-small.mp4", ["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=1",
                                                     "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
    }

    static func waitUntil(timeout: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    /// Takes frames until the end: how many came, and whether the end did.
    static func playToEnd(_ pipeline: ItemPipeline) -> (frames: Int, ended: Bool) {
        var frames = 0
        while let message = pipeline.frames.pop(timeout: 30) {
            switch message {
            case .frame: frames += 1
            case .end: return (frames, true)
            case .failed: return (frames, false)
            }
        }
        return (frames, false)
    }

    @Test func picturesAbove1080pHandOver() {
        #expect(!DecoderHandOff.isLarge(width: 1920, height: 1080))
        #expect(!DecoderHandOff.isLarge(width: 1920, height: 1088))
        #expect(!DecoderHandOff.isLarge(width: nil, height: 2160))
        #expect(DecoderHandOff.isLarge(width: 2560, height: 1440))
        #expect(DecoderHandOff.isLarge(width: 3840, height: 2160))
        #expect(DecoderHandOff.isLarge(width: 2160, height: 3840))   // a portrait 4K clip
    }

    @Test func theNextLargeDecoderWaitsForThePlayingOnesEndAndASeekBackDecodesAgain() throws {
        let clip = try Self.largeClip()
        let log = CapturedLog()
        let playing = ItemPipeline(plan: ItemPlan(source: clip), logger: log.logger)
        defer { playing.close() }
        #expect(Self.waitUntil { playing.info != nil })
        let handOff = DecoderHandOff()
        playing.handOverDecoderAtEnd(handOff)
        var plan = ItemPlan(source: clip)
        plan.decoderAfter = handOff
        let next = ItemPipeline(plan: plan, logger: log.logger)
        defer { next.close() }

        // Nothing is taken from the playing item: its end is not decoded, the next has no
        // decoder; the playing item's queue is deepened for the hand-over.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(!handOff.isReleased)
        #expect(next.info == nil)
        #expect(next.frames.count == 0)
        #expect(playing.frames.capacity == ItemPipeline.handOffQueue)

        let played = Self.playToEnd(playing)
        #expect(played.frames == 30 && played.ended, "\(played)")
        #expect(handOff.reason == .atTheEnd)
        #expect(Self.waitUntil { playing.lock.withLock { playing.handOver.freedDecoder == nil } }, "the decoder is gone, not only let go")
        let first = ItemPipelineSeekTests.firstFrame(of: 0, from: next)
        #expect(first?.pts == .zero)
        #expect(log.lines(atLeast: .debug).contains { $0.contains("decoder created once the playing item's was freed at its end") })

        // Sought back after its decoder went, the playing item decodes with a new one.
        playing.seek(to: MediaTime(value: 25, timescale: 10))
        let again = ItemPipelineSeekTests.firstFrame(of: playing.currentGeneration, from: playing)
        #expect(again?.pts == MediaTime(value: 25, timescale: 10))
        #expect(Self.playToEnd(playing) == (4, true))
    }

    @Test func closingThePlayingItemLetsTheNextDecode() throws {
        let clip = try Self.largeClip()
        let playing = ItemPipeline(plan: ItemPlan(source: clip), logger: CapturedLog().logger)
        #expect(Self.waitUntil { playing.info != nil })
        let handOff = DecoderHandOff()
        playing.handOverDecoderAtEnd(handOff)
        var plan = ItemPlan(source: clip)
        plan.decoderAfter = handOff
        let next = ItemPipeline(plan: plan, logger: CapturedLog().logger)
        defer { next.close() }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(next.info == nil)
        playing.close()   // skipped, or failed: nothing to wait for
        #expect(handOff.reason == .closed)
        #expect(ItemPipelineSeekTests.firstFrame(of: 0, from: next) != nil)
    }

    @Test func aSmallPictureNeverWaitsAndAHandOffAfterTheEndIsReleasedAtOnce() throws {
        var plan = ItemPlan(source: try Self.smallClip())
        plan.decoderAfter = DecoderHandOff()   // never released
        let small = ItemPipeline(plan: plan, logger: CapturedLog().logger)
        defer { small.close() }
        #expect(Self.playToEnd(small) == (10, true))

        // Prepared after the playing item's end was decoded: released at once, the decoder
        // kept (a seek back would need it).
        let late = DecoderHandOff()
        small.handOverDecoderAtEnd(late)
        #expect(late.reason == .alreadyEnded)
    }

    @Test func anEndASeekHasLeftDoesNotHandOverAndASeekKeepsTheHandOversDepth() throws {
        let pipeline = ItemPipeline(plan: ItemPlan(source: try ItemPipelineSeekTests.clip()), logger: CapturedLog().logger)
        defer { pipeline.close() }
        #expect(Self.waitUntil { pipeline.info != nil })
        let handOff = DecoderHandOff()
        pipeline.handOverDecoderAtEnd(handOff)
        let left = pipeline.currentGeneration
        pipeline.seek(to: MediaTime(value: 10, timescale: 1))
        #expect(pipeline.frames.capacity == ItemPipeline.handOffQueue)
        // As the decode thread would at an end it popped just before the seek.
        #expect(pipeline.takeDecoderHandOffAtEnd(generation: left) == nil)
        #expect(!handOff.isReleased)
        pipeline.close()
        #expect(handOff.reason == .closed)
    }

    /// In the engine: two 1440p items cut into each other; the second's decoder is created once
    /// the first's was freed, both play, and the loop (`loop: none`) ends after the second.
    @Test func aPlaylistOfLargeItemsHandsTheDecoderOverAtTheCut() throws {
        let second = try MediaFixtures.clip("handoff-1440p-b.mp4", ["-f", "lavfi", "-i", "testsrc=size=2560x1440:rate=10:duration=3",
                                                                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let entries = try [Self.largeClip(), second].enumerated().map { index, path in
            PlaylistEntry(media: .file(path), item: ItemConfig(source: .file(path), location: SourceLocation(file: "test", line: index + 1, column: 1)),
                          itemIndex: index)
        }
        let log = CapturedLog()
        let events = PlayerEventEngineTests.Events()
        var settings = PlayerSettings()
        settings.exitWhenFinished = true
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 640, height: 360)),
                                     playlist: PlaylistCursor(entries: entries, loopMode: .none), settings: settings,
                                     logger: log.logger, onEvent: { events.add($0) })
        player.start()
        defer { _ = player.stop() }
        #expect(player.waitUntilFinished(timeout: 120))
        #expect(events.started.map(\.source) == entries.map(\.media.description))
        let skipped = events.all.filter { if case .itemSkipped = $0 { true } else { false } }
        #expect(skipped.isEmpty, "\(skipped)")
        let handedOver = log.lines(atLeast: .debug).filter { $0.contains("decoder created once the playing item's was freed at its end") }
        #expect(handedOver.count == 1 && handedOver.first?.contains("handoff-1440p-b.mp4") == true, "\(handedOver)")
    }

    @Test func aClosedWaiterStopsWaiting() {
        let handOff = DecoderHandOff()
        var looks = 0
        #expect(!handOff.wait(unless: { looks += 1; return looks > 2 }))
        handOff.release(.closed)
        handOff.release(.atTheEnd)
        #expect(handOff.wait(unless: { true }))
        #expect(handOff.reason == .closed, "the first reason is kept")
    }
}
