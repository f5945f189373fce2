import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Logging
import Testing
@testable import KioskPlayer

/// A panel that flips on a vblank grid. The presenter draws each picture for the flip it foresees
/// (`drawSeconds` after it starts, smoothed): the frame due then, a ticker's position then. After
/// slow draws the estimate runs high, a refresh or more; a fast draw then went up at the vblank
/// before the one it was drawn for: a video frame a refresh early, and a ticker two steps on at
/// once and one behind at the next flip (CI, 2026-11-29, test_layers). The presenter holds such a
/// picture until the vblank before its own has passed.
@Suite(.serialized) struct VblankHoldEngineTests {
    static let screen = PixelSize(width: 320, height: 180)

    @Test func nothingDrawnForALaterVblankGoesUpBeforeIt() throws {
        let settings = tickerSettings()
        // 24 back buffers of 30 ms, shared by the frames' draws and the ticker's refreshes (each
        // with an estimate of its own), take both estimates near 20 ms (more than a refresh);
        // the draws after take a millisecond or two, and the estimates come down over a few flips.
        let display = SlowDrawsDisplay(HeadlessDisplay(size: Self.screen, refreshRate: 60, pacing: .vblank),
                                       slowDraws: 24, slowSeconds: 0.03)
        let (records, video) = try display.playClipOnce("vblank-hold-25fps", settings: settings)
        let refresh = 1.0 / 60

        #expect(video.count >= 40, "most of the 75 frames shown (\(video.count))")
        guard let first = video.first else { return }
        // The pacer takes a frame due within half a refresh of its flip (8.3 ms); a refresh
        // early is 8-25 ms.
        let early = video.map { (($0.pts - first.pts) - ($0.t - first.t)) * 1000 }.enumerated().filter { $0.element > 12 }
        #expect(early.isEmpty, "frames shown early (index, ms): \(early.prefix(8).map { "(\($0.offset), \(Int($0.element)))" })")

        // Each flip's ticker position says which vblank it was placed for: 2 px a refresh on
        // from the first's. Placed for a later vblank than it went up at is ahead of the flips
        // placed for their own (the most: late ones are a few on a busy machine).
        // The count of late flips is not bounded here: the machine makes those (test_layers).
        let ticker = TickerSlots(records, refresh: refresh)
        #expect(ticker.flips >= 60, "the ticker moved at the refreshes (\(ticker.flips) flips)")
        let ahead = ticker.away(+1)
        #expect(ahead.isEmpty, "flips whose ticker was placed for a later vblank (index, refreshes): \(ahead.prefix(8))")
    }

    /// Every draw takes 6 ms. The pacer takes a frame for the refresh nearest its time, and was
    /// woken half a refresh before that time: a frame whose nearest vblank came too soon after
    /// that for a draw (and the aim's margin) could no longer make it and was aimed at the next,
    /// a refresh late: the frames of 2 of the 5 phases a 25 fps clip has against 60 Hz, every
    /// one of them (measured with that wake-up: 23 of 23, the other phases' 1 of 36). Woken
    /// earlier by the draw, each goes up at the refresh nearest its time.
    /// A loaded host's late wake-ups make frames late too (it counted late frames before, and
    /// failed on a loaded machine: 12 of 60 in a stress run). Mostly at any phase; but the wake
    /// leaves each phase its own slack, least (1.8 ms) to a frame 6.5 ms past a vblank, and with
    /// a stress run's load beside it that one phase was late every time (1.00, the others 0.00).
    /// So the test asks that no two phases are late nearly always while another seldom is.
    @Test func aSlowDrawStillMakesTheVblankNearestTheFramesTime() throws {
        let display = SlowDrawsDisplay(HeadlessDisplay(size: Self.screen, refreshRate: 60, pacing: .vblank),
                                       slowEvery: 1, after: 0, slowSeconds: 0.006)
        let (records, video) = try display.playClipOnce("vblank-slow-draws-25fps", settings: PlayerSettings())
        #expect(video.count >= 60, "most of the 75 frames shown (\(video.count))")
        let refresh = 1000.0 / 60
        // Each frame's place against the clock: set by the last untimed frame's flip (the first
        // one, or the first after a rebuffer on a starved host; on a vblank), running at rate 1
        // from there. Its phase: how far its time lies past the vblank before it, to 0.5 ms.
        var anchor: (t: Double, pts: Double)?
        var frames: [(offset: Double, phase: Int)] = []
        for record in records where record["video"] as? Bool == true {
            guard let t = record["t"] as? Double, let pts = record["pts"] as? Double else { continue }
            guard record["aim"] != nil, let start = anchor else { anchor = (t, pts); continue }
            let time = (pts - start.pts) * 1000
            let phase = Int((time.truncatingRemainder(dividingBy: refresh) * 2).rounded()) % Int(refresh * 2)
            frames.append((offset: (t - start.t) * 1000 - time, phase: phase))
        }
        // After the draw estimate (smoothed over 8 draws) has settled: more than half a refresh
        // (8.3 ms) after its time, with a millisecond of slack, is a refresh late.
        let settled = frames.dropFirst(15)
        let phases = Dictionary(grouping: settled, by: \.phase).filter { $0.value.count >= 6 }
        #expect(settled.count >= 45 && phases.count >= 3, "timed frames (\(settled.count)) in phases (\(phases.count))")
        let lateShare = phases.mapValues { group in Double(group.filter { $0.offset > 9.4 }.count) / Double(group.count) }
        let nearlyAlways = lateShare.values.filter { $0 >= 0.8 }.count, best = lateShare.values.min() ?? 0
        #expect(!(nearlyAlways >= 2 && best <= 0.3),
                "frames a refresh late by phase (half ms past a vblank: share): \(lateShare.sorted { $0.key < $1.key }.map { "\($0.key): \(String(format: "%.2f", $0.value))" })")
    }

    /// A display with a video plane whose driver refuses the frames (TEST_ONLY), on a vblank
    /// grid, with CPU draws of 14 ms (most of a refresh). The plane path holds a frame until just
    /// before its flip only once a plane has taken it: held before the CPU path drew it, each
    /// frame's 14 ms draw began three quarters of a refresh before its vblank and missed it.
    @Test func aFrameThePlaneRefusedIsNotHeldBeforeItsDraw() throws {
        let display = SimulatedPlaneDisplay(size: Self.screen, refusesTestCommits: true, pacing: .vblank, slowDrawSeconds: 0.014)
        let (records, video) = try display.playClipOnce("vblank-refused-plane-25fps", settings: PlayerSettings())
        #expect(display.shown.isEmpty, "the plane took no frame")
        #expect(video.count >= 60, "most of the 75 frames shown (\(video.count))")
        let aimed = records.compactMap { record -> Double? in
            guard let t = record["t"] as? Double, let aim = record["aim"] as? Double else { return nil }
            return t - aim
        }
        #expect(aimed.count >= 50, "timed frames say their aim (\(aimed.count))")
        // After the draw estimate (smoothed over 8 draws) has settled.
        let missed = aimed.dropFirst(15).filter { $0 > 0.5 / 60 }
        #expect(missed.count <= aimed.count / 10, "frames a refresh or more past their aim: \(missed.count) of \(aimed.count - 15)")
    }

    /// A 60 fps clip on a 60 Hz grid whose draws take 12 ms, every tenth 20 ms (a vblank missed
    /// each time, which raises the aim's margin). Decided just after each flip, every frame
    /// must still be aimed at the next tick: a margin above what the refresh leaves after the
    /// draw (a quarter refresh, 4.2 ms, on top of 12.8) aimed each a tick further, and the
    /// pacer dropped every other frame until the margin came down again.
    @Test func missesLeaveA60fpsVideoItsEveryVblank() throws {
        let display = SlowDrawsDisplay(HeadlessDisplay(size: Self.screen, refreshRate: 60, pacing: .vblank),
                                       drawTime: { $0 % 10 == 0 ? 0.02 : 0.012 })
        let (records, video) = try display.playClipOnce("vblank-heavy-60fps", fps: 60, settings: PlayerSettings())
        let dropped = records.last?["dropped"] as? Int ?? -1
        #expect(video.count >= 120, "most of the 180 frames shown (\(video.count))")
        // A 20 ms draw misses its tick, and a frame is dropped after it: ~18 of 180.
        #expect(dropped >= 0 && dropped <= 45, "frames dropped: \(dropped) of 180")
    }
}
