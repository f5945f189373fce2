import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let refresh = 1.0 / 60

@Test func aDriverWithoutVblanksIsPredictedToFlipAtOnce() {
    var predictor = VblankPredictor(refreshInterval: refresh, lastVblank: nil)
    predictor.record(flip: 10.0)
    #expect(!predictor.isVblankPaced)
    #expect(predictor.expectedFlip(after: 10.001) == 10.001)
    #expect(predictor.expectedFlip(after: 20.5) == 20.5)
}

@Test func aPanelIsPredictedOnItsVblankGrid() {
    var predictor = VblankPredictor(refreshInterval: refresh, lastVblank: 100.0)
    #expect(predictor.isVblankPaced)
    // From the vblank the kernel reported at the start.
    #expect(abs(predictor.expectedFlip(after: 100.0 + 30.5 * refresh) - (100.0 + 31 * refresh)) < 1e-9)
    let last = 100.0 + 7 * refresh
    predictor.record(flip: last)
    #expect(abs(predictor.expectedFlip(after: last + 0.002) - (last + refresh)) < 1e-9)
    #expect(abs(predictor.expectedFlip(after: last + refresh + 0.001) - (last + 2 * refresh)) < 1e-9)
    // Asked for at the last flip or before it: the next vblank, never the same one again.
    #expect(abs(predictor.expectedFlip(after: last) - (last + refresh)) < 1e-9)
    #expect(abs(predictor.expectedFlip(after: last - 0.004) - (last + refresh)) < 1e-9)
    // Long after (paused a while): the grid carries on, at most a refresh ahead.
    let host = last + 10.003
    let later = predictor.expectedFlip(after: host)
    #expect(later > host && later - host <= refresh + 1e-9)
    let ticks = (later - last) / refresh
    #expect(abs(ticks - ticks.rounded()) < 1e-6)
}
