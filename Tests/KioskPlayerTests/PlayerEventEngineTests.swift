import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// What the engine's events say about items and requests, which proof of play and resume read
/// instead of guessing: each item's source and whether it is an insert, and the playlist
/// requests carried out (from any source) before the item change they bring.
@Suite(.serialized) struct PlayerEventEngineTests {
    /// The player's events, gathered from the presenter thread.
    final class Events: @unchecked Sendable {
        // Safe to share: `list` is only touched with `lock` held.
        private let lock = NSLock()
        private var list: [PlayerEvent] = []
        func add(_ event: PlayerEvent) { lock.withLock { list.append(event) } }
        var all: [PlayerEvent] { lock.withLock { list } }

        /// The references of the items started, in order.
        var started: [PlayerItemReference] {
            all.compactMap { if case .playback(.itemStarted(let reference), _, _) = $0 { reference } else { nil } }
        }

        /// The playlist requests reported as carried out, in order.
        var requests: [PlayerRequest] {
            all.compactMap { if case .playlistRequest(let request) = $0 { request } else { nil } }
        }

        /// The position of the first event `matching` says yes to.
        func position(_ matching: (PlayerEvent) -> Bool) -> Int? { all.firstIndex(where: matching) }
    }

    /// A player of a 6 s clip `a`, started and under way, its events gathered; `b` a 1 s clip
    /// to send. The caller stops the player.
    static func playingA() throws -> (QueuePlayer, Events, PlaylistEntry, PlaylistEntry) {
        let a = try PlaylistProgramEngineTests.entry("events-a.mp4", seconds: 6)
        let b = try PlaylistProgramEngineTests.entry("events-b.mp4", seconds: 1)
        let events = Events()
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                     playlist: PlaylistCursor(entries: [a], loopMode: .playlist),
                                     logger: CapturedLog().logger, onEvent: { events.add($0) })
        player.start()
        #expect(waitUntil(20) { player.currentTime.seconds > 0.5 }, "a plays")
        return (player, events, a, b)
    }

    @Test func anInsertIsReportedWithItsRequestItsSourceAndItsFlag() throws {
        let (player, events, a, b) = try Self.playingA()
        defer { _ = player.stop() }
        player.send(.goto(index: 7))   // refused: not reported as carried out
        player.send(.playOnce(.entries([b]), when: .now))
        #expect(waitUntil(20) { events.started.count >= 3 }, "a, the insert b, a again: \(events.started)")
        let started = events.started
        guard started.count >= 3 else { return }
        #expect(started.map(\.source) == [a.media.description, b.media.description, a.media.description])
        #expect(started.map(\.isInsert) == [false, true, false])
        #expect(started.map(\.name) == [a.title, b.title, a.title])
        let requests = events.requests
        #expect(requests == [.playOnce(.entries([b]), when: .now)], "only the request carried out")
        let asked = try #require(events.position { if case .playlistRequest = $0 { true } else { false } })
        let insertStarted = try #require(events.position {
            if case .playback(.itemStarted(let reference), _, _) = $0 { reference.isInsert } else { false }
        })
        #expect(asked < insertStarted, "the request comes before the item change it brings")
        // The insert played to its end (the item it gives back is never prepared ahead): it
        // ended, before the interrupted item started again; the interrupted one did not.
        let ended = events.all.compactMap { if case .playback(.itemEnded(let reference), _, _) = $0 { reference } else { nil } }
        #expect(ended.first == started[1], "the insert's end: \(ended)")
        #expect(!ended.contains(started[0]), "the interrupted item did not end")
        let insertEnded = try #require(events.position { if case .playback(.itemEnded, _, _) = $0 { true } else { false } })
        let resumed = try #require(events.position {
            if case .playback(.itemStarted(let reference), _, _) = $0 { reference == started[2] } else { false }
        })
        #expect(insertEnded < resumed)
    }

    @Test func anItemThatEndsAtASeamEndsAtItsOwnTime() throws {
        // Two 1.5 s clips; the second is prepared ahead, so the first ends at a seamless seam,
        // where the clock turns to the second's time: its end was reported at 0.0 (CI's bed).
        // The second is trimmed to start at 1.0 s: a's end was counted from b's start (0.5 s).
        let a = try PlaylistProgramEngineTests.entry("seam-end-a.mp4", seconds: 1.5)
        var b = try PlaylistProgramEngineTests.entry("seam-end-b.mp4", seconds: 2.5)
        b.item.start = MediaTime(value: 1, timescale: 1)
        let events = Events()
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                     playlist: PlaylistCursor(entries: [a, b], loopMode: .playlist),
                                     logger: CapturedLog().logger, onEvent: { events.add($0) })
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(30) { events.started.count >= 2 }, "a, then b: \(events.started)")
        let ends = events.all.compactMap { event -> (PlayerItemReference, MediaTime)? in
            if case .playback(.itemEnded(let reference), _, let time) = event { (reference, time) } else { nil }
        }
        let end = try #require(ends.first, "a ended")
        #expect(end.0 == events.started.first)
        #expect(end.1.seconds > 1.2 && end.1.seconds < 1.8, "a's end reported at \(end.1.seconds) s")
        // From playing to playing in one step, as AVQueuePlayer: no "waiting, no item to play"
        // between a's end and b's start (a dashboard showed one at every seam), and a's end
        // names a's index, not b's.
        let all = events.all
        let endedAt = try #require(all.firstIndex { if case .playback(.itemEnded, _, _) = $0 { true } else { false } })
        let startedAt = try #require(all.firstIndex {
            if case .playback(.itemStarted(let reference), _, _) = $0 { reference == events.started[1] } else { false }
        })
        let between = all[endedAt..<startedAt].filter { if case .playback(.timeControlStatusChanged, _, _) = $0 { true } else { false } }
        #expect(between.isEmpty, "status changes at the seam: \(between)")
        if case .playback(_, let index, _) = all[endedAt] { #expect(index == 0, "a's end is said with a's index") }
    }

    /// What `get time` and MQTT's status read at a seam: the snapshot between a's end and b's
    /// start named b (current already) with a's time (the clock not yet turned): the retained
    /// status said "item 1, b.mp4, time 3.95". b's time there is its start.
    @Test func theSnapshotAtASeamNeverPairsTheIncomingItemWithTheOutgoingTime() throws {
        let a = try PlaylistProgramEngineTests.entry("seam-snapshot-a.mp4", seconds: 1.5)
        let b = try PlaylistProgramEngineTests.entry("seam-snapshot-b.mp4", seconds: 1.5)
        final class Seen: @unchecked Sendable {
            // Safe to share: touched with `lock` held.
            let lock = NSLock()
            weak var player: QueuePlayer?
            var pairs: [(index: Int?, time: Double)] = []
        }
        let seen = Seen()
        let player = try QueuePlayer(output: HeadlessDisplay(size: PixelSize(width: 320, height: 240)),
                                     playlist: PlaylistCursor(entries: [a, b], loopMode: .playlist),
                                     logger: CapturedLog().logger, onEvent: { event in
            guard case .playback(.itemStarted, _, _) = event else { return }
            seen.lock.withLock {
                if let player = seen.player { seen.pairs.append((player.currentItemIndex, player.currentTime.seconds)) }
            }
        })
        seen.lock.withLock { seen.player = player }
        player.start()
        defer { _ = player.stop() }
        #expect(waitUntil(30) { seen.lock.withLock { seen.pairs.count >= 3 } }, "a, b, a again")
        let pairs = seen.lock.withLock { seen.pairs }
        for pair in pairs.dropFirst() {
            #expect(pair.time < 0.5, "at a start, the snapshot said item \(String(describing: pair.index)) at \(pair.time) s")
        }
    }

    @Test func aLoadIsReportedOnceAsALoad() throws {
        let (player, events, _, b) = try Self.playingA()
        defer { _ = player.stop() }
        player.send(.load([b]))
        #expect(waitUntil(20) { events.started.contains { $0.source == b.media.description } }, "b plays")
        let requests = events.requests
        // Proof of play blames the change on the load; the load's own step to its first entry is
        // not a second request.
        #expect(requests == [.load([b])])
    }
}
