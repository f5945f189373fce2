import Foundation
import KioskCore
import KioskDisplay
import KioskTestSupport
import Testing
@testable import KioskPlayer

/// A panel that flips on a vblank grid, and a draw now and then that runs two refreshes past
/// the presenter's estimate (a host busy with other work; a run's first frames). The ticker was
/// placed for the flip foreseen when the draw began and went up two vblanks later: two steps
/// behind, then a jump of three at the next flip (CI, 2026-11-29, test_layers: a flip three
/// refreshes after the one before with one step). The presenter places a ticker whose draw ran
/// late again, for the flip it reaches; a draw that still makes its flip is left alone.
@Suite(.serialized) struct LateTickerEngineTests {
    /// A 60 Hz headless grid whose back buffers are slow as `slow` says; the ticker's flips
    /// of a clip played once on it.
    private func tickerFlips(_ name: String, _ slow: (HeadlessDisplay) -> SlowDrawsDisplay) throws -> (TickerSlots, SlowDrawsDisplay) {
        let display = slow(HeadlessDisplay(size: PixelSize(width: 320, height: 180), refreshRate: 60, pacing: .vblank))
        let ticker = TickerSlots(try display.playClipOnce(name, settings: tickerSettings()).records)
        #expect(ticker.flips >= 60, "the ticker moved at the refreshes (\(ticker.flips) flips)")
        return (ticker, display)
    }

    @Test func aTickerWhoseDrawRanLateIsPlacedForTheFlipItReaches() throws {
        // After 20 draws (the estimates settled), every 9th back buffer takes 40 ms (2.4
        // refreshes): frames' draws and the ticker's refreshes alike.
        let (ticker, display) = try tickerFlips("late-ticker-25fps") { SlowDrawsDisplay($0, slowEvery: 9, after: 20, slowSeconds: 0.04) }
        // The flips the slow draws made (about 10 while the line runs): each placed two vblanks
        // or more before the one it went up at without the placing again; with it, none unless
        // the machine held kiosk back after the second placing as well. Other flips are the
        // machine's to make late (VblankHoldEngineTests).
        let slow = ticker.firstFlips(after: display.slowHandedOut)
        #expect(slow.count >= 5, "slow draws while the ticker ran: \(slow.count)")
        let behind = ticker.away(-1, by: 2).filter { slow.contains($0.offset) }
        #expect(behind.count <= 2, "slow draws' flips placed two or more vblanks before they went up (index, refreshes): \(behind) of \(slow.sorted())")
        #expect(ticker.away(+1).isEmpty, "flips whose ticker was placed for a later vblank: \(ticker.away(+1).prefix(8))")
    }

    @Test func aTickerWhoseDrawsFitTheRefreshTakesEveryVblank() throws {
        // Every back buffer takes 10 ms: more than half a refresh, less than one. Each draw makes
        // the flip it was placed for, and is not placed again for a later one.
        let (ticker, _) = try tickerFlips("fitting-ticker-25fps") { SlowDrawsDisplay($0, slowEvery: 1, after: 0, slowSeconds: 0.01) }
        let gaps = zip(ticker.times, ticker.times.dropFirst()).map { Int((($1 - $0) * 60).rounded()) }
        let everyVblank = gaps.filter { $0 == 1 }.count
        // Placed again each time, a refresh waited for the next vblank: 11 of 96 gaps were one
        // (the first version of the placing again). A loaded machine makes some gaps two; the
        // bar is well under what a quiet one makes and well over the defect's.
        #expect(everyVblank * 10 >= gaps.count * 4, "flips a vblank after the one before: \(everyVblank) of \(gaps.count)")
    }
}
