import Testing
@testable import KioskPolicy

private let refresh = 1.0 / 60

@Test func aFlipIsAskedForTheLeadBeforeItsVblank() {
    let lead = CommitLead(refreshInterval: refresh)
    #expect(lead.seconds == 0.001)                                // the floor to begin with
    #expect(abs(lead.commitMoment(flip: 10.0) - 9.999) < 1e-9)
}

@Test func aMissedVblankWidensTheLeadByAStepUpToARefresh() {
    var lead = CommitLead(refreshInterval: refresh)
    lead.record(aimedAt: 1.0, flippedAt: 1.0 + refresh)          // a refresh late: missed
    #expect(lead.misses == 1)
    #expect(abs(lead.seconds - 0.002) < 1e-12)                    // 1 ms + a 1 ms step
    for index in 0..<30 { lead.record(aimedAt: Double(index), flippedAt: Double(index) + 2 * refresh) }
    #expect(lead.misses == 31)
    #expect(lead.seconds == refresh)                              // never beyond a refresh
    // A flip a little after its aim (a timestamp's jitter) is on time.
    var calm = CommitLead(refreshInterval: refresh)
    calm.record(aimedAt: 1.0, flippedAt: 1.0 + refresh / 3)
    #expect(calm.misses == 0)
    #expect(calm.seconds == calm.floor)
}

@Test func theLeadShrinksByHalfAStepAfterCalmFlipsButNotBelowItsFloor() {
    var lead = CommitLead(refreshInterval: refresh, floor: 0.001, step: 0.001, calmFlips: 5)
    lead.record(aimedAt: 0, flippedAt: refresh)                  // 2 ms
    lead.record(aimedAt: 0, flippedAt: refresh)                  // 3 ms
    #expect(abs(lead.seconds - 0.003) < 1e-12)
    for _ in 0..<4 { lead.record(aimedAt: 1, flippedAt: 1) }
    #expect(abs(lead.seconds - 0.003) < 1e-12)                    // not yet calm
    lead.record(aimedAt: 1, flippedAt: 1)
    #expect(abs(lead.seconds - 0.0025) < 1e-12)                   // half a step off
    // A miss restarts the count.
    for _ in 0..<4 { lead.record(aimedAt: 1, flippedAt: 1) }
    lead.record(aimedAt: 1, flippedAt: 1 + refresh)              // 3.5 ms
    for _ in 0..<4 { lead.record(aimedAt: 1, flippedAt: 1) }
    #expect(abs(lead.seconds - 0.0035) < 1e-12)
    for _ in 0..<1000 { lead.record(aimedAt: 1, flippedAt: 1) }
    #expect(lead.seconds == 0.001)
}

@Test func aFloorOverARefreshIsARefresh() {
    let lead = CommitLead(refreshInterval: 0.01, floor: 0.05)
    #expect(lead.seconds == 0.01)
}

@Test func aCeilingHoldsTheLeadBelowARefresh() {
    // The pacer's aim margin: a quarter of a refresh at most, so a run of misses cannot leave
    // it climbing (and thousands of calm flips to come back) past what is ever used.
    var lead = CommitLead(refreshInterval: refresh, ceiling: refresh / 4)
    for index in 0..<30 { lead.record(aimedAt: Double(index), flippedAt: Double(index) + refresh) }
    #expect(lead.misses == 30)
    #expect(lead.seconds == refresh / 4)
    // A ceiling under the floor lowers the floor to it; one above a refresh is a refresh.
    #expect(CommitLead(refreshInterval: refresh, floor: 0.005, ceiling: 0.002).seconds == 0.002)
    #expect(CommitLead(refreshInterval: refresh, ceiling: 1).ceiling == refresh)
}

@Test func withMissesToRiseOnlyMissesThatComeTogetherWidenTheLead() {
    // #35: a VM's sporadic late wake-ups (one miss every few hundred flips) left the lead at
    // 3-8 ms, and every override asked for in it waited a refresh behind the committed flip.
    var lead = CommitLead(refreshInterval: refresh, calmFlips: 120, missesToRise: 3)
    for round in 0..<10 {
        lead.record(aimedAt: 1, flippedAt: 1 + refresh)          // one miss...
        for _ in 0..<200 { lead.record(aimedAt: 1, flippedAt: 1) } // ...then 200 on time
        #expect(lead.misses == round + 1)
    }
    #expect(lead.seconds == lead.floor)
    // Two misses 120 flips apart do not come together either; three within 120 do.
    lead.record(aimedAt: 1, flippedAt: 1 + refresh)
    for _ in 0..<119 { lead.record(aimedAt: 1, flippedAt: 1) }
    lead.record(aimedAt: 1, flippedAt: 1 + refresh)
    lead.record(aimedAt: 1, flippedAt: 1 + refresh)
    #expect(lead.seconds == lead.floor)                          // the first is 121 flips back
    lead.record(aimedAt: 1, flippedAt: 1 + refresh)
    #expect(abs(lead.seconds - 0.002) < 1e-12)
    // A driver that latches early misses every flip: a step each third.
    var early = CommitLead(refreshInterval: refresh, missesToRise: 3)
    for _ in 0..<9 { early.record(aimedAt: 1, flippedAt: 1 + refresh) }
    #expect(abs(early.seconds - 0.004) < 1e-12)
    #expect(early.misses == 9)
    // Raised, it comes back down through sporadic misses: one every 100 flips restarts nothing.
    for _ in 0..<3000 {
        early.record(aimedAt: 1, flippedAt: 1 + refresh)
        for _ in 0..<99 { early.record(aimedAt: 1, flippedAt: 1) }
    }
    #expect(early.seconds == early.floor)
}
