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
/// late again, for the flip it reaches.
@Suite(.serialized) struct LateTickerEngineTests {
    @Test func aTickerWhoseDrawRanLateIsPlacedForTheFlipItReaches() throws {
        // After 20 draws (the estimates settled), every 9th back buffer takes 40 ms (2.4
        // refreshes): frames' draws and the ticker's refreshes alike.
        let display = SlowDrawsDisplay(HeadlessDisplay(size: PixelSize(width: 320, height: 180), refreshRate: 60, pacing: .vblank),
                                       slowEvery: 9, after: 20, slowSeconds: 0.04)
        let (records, _) = try display.playClipOnce("late-ticker-25fps", settings: tickerSettings())
        let ticker = TickerSlots(records)
        #expect(ticker.flips >= 60, "the ticker moved at the refreshes (\(ticker.flips) flips)")
        // About 10 slow draws while the line runs. Placed two vblanks or more before the one
        // it went up at: each of them without the placing again; with it, none unless the
        // machine held kiosk back after the second placing (a few at most).
        let behind = ticker.away(-1, by: 2)
        #expect(behind.count <= 2, "flips whose ticker was placed two or more vblanks before it went up (index, refreshes): \(behind.prefix(12))")
        #expect(ticker.away(+1).isEmpty, "flips whose ticker was placed for a later vblank: \(ticker.away(+1).prefix(8))")
    }
}
