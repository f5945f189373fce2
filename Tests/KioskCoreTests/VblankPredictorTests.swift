import Testing
@testable import KioskCore

private let refresh = 1.0 / 60

@Test func aDisplayThatAnswersAtOnceIsPredictedToFlipAtOnce() {
    var predictor = VblankPredictor(refreshInterval: refresh)
    for i in 0..<10 {
        let asked = 10 + Double(i) * 0.0333
        predictor.record(requested: asked, completed: asked + 0.0002)
    }
    #expect(!predictor.isVblankPaced)
    #expect(predictor.expectedFlip(after: 20.5) == 20.5)
}

@Test func aPanelIsPredictedOnItsVblankGrid() {
    var predictor = VblankPredictor(refreshInterval: refresh)
    // Flips asked for 5 ms after a vblank complete on the next one.
    var vblank = 100.0
    for _ in 0..<4 {
        predictor.record(requested: vblank + 0.005, completed: vblank + refresh)
        vblank += refresh
    }
    #expect(predictor.isVblankPaced)
    let last = vblank   // the last completed flip
    #expect(abs(predictor.expectedFlip(after: last + 0.002) - (last + refresh)) < 1e-9)
    #expect(abs(predictor.expectedFlip(after: last + refresh + 0.001) - (last + 2 * refresh)) < 1e-9)
    // Asked for exactly at the last flip or before it: still the next vblank, never the same one.
    #expect(abs(predictor.expectedFlip(after: last) - (last + refresh)) < 1e-9)
    #expect(abs(predictor.expectedFlip(after: last - 0.004) - (last + refresh)) < 1e-9)
    // Long after (paused for a while): the grid carries on.
    let later = predictor.expectedFlip(after: last + 10.003)
    #expect(later > last + 10.003 && later - (last + 10.003) <= refresh + 1e-9)
    let phase = ((later - last) / refresh).rounded() * refresh - (later - last)
    #expect(abs(phase) < 1e-6)
}

@Test func oneLateAnswerDoesNotMakeAVirtualDriverAPanel() {
    var predictor = VblankPredictor(refreshInterval: refresh)
    for i in 0..<8 {
        let asked = Double(i) * 0.04
        // One flip in eight was slow (the machine was busy), the rest came back at once.
        predictor.record(requested: asked, completed: asked + (i == 3 ? 0.01 : 0.0001))
    }
    #expect(!predictor.isVblankPaced)
    #expect(predictor.expectedFlip(after: 1.0) == 1.0)
}

@Test func twoFlipsAreNotEnoughToJudge() {
    var predictor = VblankPredictor(refreshInterval: refresh)
    predictor.record(requested: 0, completed: refresh)
    predictor.record(requested: refresh + 0.001, completed: 2 * refresh)
    #expect(!predictor.isVblankPaced)
}

@Test func aSlowVirtualGPUThatAnswersOffTheGridIsNotAPanel() {
    var predictor = VblankPredictor(refreshInterval: refresh)
    var asked = 5.0
    for delay in [0.004, 0.0071, 0.0023, 0.0109, 0.0052, 0.0087, 0.0031, 0.0064] {
        predictor.record(requested: asked, completed: asked + delay)
        asked += 0.0333 + delay
    }
    #expect(!predictor.isVblankPaced)
    #expect(predictor.expectedFlip(after: 7.0) == 7.0)
}
