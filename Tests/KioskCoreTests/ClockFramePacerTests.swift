import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private let bootHost = MediaTime(hostNanoseconds: 987_654_321_000)
private let refresh60 = MediaTime(value: 1, timescale: 60)
private func millis(_ ms: Int64) -> MediaTime { MediaTime(value: ms, timescale: 1000) }

@Test func aFrameIsPresentedWithinHalfARefreshOfItsTime() {
    let clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: .one)
    let frame = millis(100)
    // 100 ms is due from 100 - 8.33 ms on.
    let early = FramePacer.decide(framePTS: frame, nextFramePTS: nil, clock: clock, refreshInterval: refresh60,
                                  now: bootHost + millis(50))
    #expect(early == .wait(untilHost: bootHost + millis(100) - MediaTime(value: 1, timescale: 120)))
    let onTime = FramePacer.decide(framePTS: frame, nextFramePTS: millis(133), clock: clock, refreshInterval: refresh60,
                                   now: bootHost + millis(92))
    #expect(onTime == .present)
}

@Test func waitingAtRateTwoIsHalfAsLong() {
    let clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: Rational(2, 1))
    let decision = FramePacer.decide(framePTS: millis(1000), nextFramePTS: nil, clock: clock, refreshInterval: refresh60,
                                     now: bootHost)
    #expect(decision == .wait(untilHost: bootHost + millis(500) - MediaTime(value: 1, timescale: 120)))
}

@Test func aLateFrameIsDroppedOnlyWhenANewerOneIsDue() {
    let clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: .one)
    let now = bootHost + millis(1000)
    // Frame at 900 ms, next at 933 ms: both past, show the newer.
    #expect(FramePacer.decide(framePTS: millis(900), nextFramePTS: millis(933), clock: clock,
                              refreshInterval: refresh60, now: now) == .drop)
    // Late, but the next frame is not due yet: show it late rather than leave a hole.
    #expect(FramePacer.decide(framePTS: millis(990), nextFramePTS: millis(1023), clock: clock,
                              refreshInterval: refresh60, now: now) == .present)
    // Very late and nothing newer decoded (a slow decoder): still shown.
    #expect(FramePacer.decide(framePTS: millis(100), nextFramePTS: nil, clock: clock,
                              refreshInterval: refresh60, now: now) == .present)
}

@Test func aStoppedClockShowsTheFrameAtItsPositionAndHoldsTheRest() {
    let paused = PlaybackClock(mediaTime: millis(2000), hostTime: bootHost)
    let now = bootHost + millis(5000)
    #expect(FramePacer.decide(framePTS: millis(2000), nextFramePTS: millis(2040), clock: paused,
                              refreshInterval: refresh60, now: now) == .present)
    #expect(FramePacer.decide(framePTS: millis(2040), nextFramePTS: nil, clock: paused,
                              refreshInterval: refresh60, now: now) == .waitForClock)
    // Frames decoded before a paused seek target are dropped up to the target's frame.
    #expect(FramePacer.decide(framePTS: millis(1960), nextFramePTS: millis(2000), clock: paused,
                              refreshInterval: refresh60, now: now) == .drop)
    // A frame less than half a refresh past the stopped clock is not its frame: held, on a
    // slow screen too (playing, it would be shown at the refresh nearest its time).
    #expect(FramePacer.decide(framePTS: millis(2008), nextFramePTS: nil, clock: paused,
                              refreshInterval: millis(100), now: now) == .waitForClock)
}

struct CadenceCase: Sendable, CustomStringConvertible {
    let frameDuration: MediaTime
    let refresh: MediaTime
    let rate: Rational
    /// How many refreshes each shown frame stays on screen, in order (repeating).
    let holdPattern: [Int]
    /// How many frames of how many the rates force the presenter to drop.
    let dropsPerCycle: (dropped: Int, frames: Int)
    var description: String {
        "\(frameDuration.seconds) s frames on \(refresh.seconds) s refresh at rate \(rate)"
    }
}

private func fps(_ n: Int64, _ d: Int64 = 1) -> MediaTime { MediaTime(value: d, timescale: Int32(n)) }

let cadenceTable: [CadenceCase] = [
    // 30 fps on 60 Hz: every frame twice.
    CadenceCase(frameDuration: fps(30), refresh: fps(60), rate: .one, holdPattern: [2], dropsPerCycle: (0, 1)),
    // Film on 60 Hz: the 3:2 pulldown cadence falls out of "nearest refresh".
    CadenceCase(frameDuration: fps(24), refresh: fps(60), rate: .one, holdPattern: [2, 3], dropsPerCycle: (0, 1)),
    // PAL on 50 Hz.
    CadenceCase(frameDuration: fps(25), refresh: fps(50), rate: .one, holdPattern: [2], dropsPerCycle: (0, 1)),
    // Slow motion: each frame four refreshes.
    CadenceCase(frameDuration: fps(30), refresh: fps(60), rate: Rational(1, 2), holdPattern: [4], dropsPerCycle: (0, 1)),
    // Double speed with frames as fast as the screen: every other frame goes.
    CadenceCase(frameDuration: fps(60), refresh: fps(60), rate: Rational(2, 1), holdPattern: [1], dropsPerCycle: (1, 2)),
    // 60 fps on a 50 Hz screen: one frame in six cannot be shown.
    CadenceCase(frameDuration: fps(60), refresh: fps(50), rate: .one, holdPattern: [1], dropsPerCycle: (1, 6)),
    // NTSC 29.97 on 59.94: every frame twice, exactly, for the whole run.
    CadenceCase(frameDuration: MediaTime(value: 1001, timescale: 30000), refresh: MediaTime(value: 1001, timescale: 60000),
                rate: .one, holdPattern: [2], dropsPerCycle: (0, 1)),
]

/// Runs a presenter against the pacer for `refreshes` vsyncs: each refresh, frames are taken
/// from the queue until one is presented or the head must wait. Returns which frames were shown
/// (and at which refresh) and which were dropped.
private func runPresenter(_ c: CadenceCase, refreshes: Int) -> (shown: [Int], shownAt: [Int], dropped: [Int]) {
    let clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: c.rate)
    var head = 0
    var shown: [Int] = [], shownAt: [Int] = [], dropped: [Int] = []
    for k in 0..<refreshes {
        let now = bootHost + c.refresh * Rational(Int64(k), 1)
        while true {
            let pts = c.frameDuration * Rational(Int64(head), 1)
            let next = c.frameDuration * Rational(Int64(head + 1), 1)
            let decision = FramePacer.decide(framePTS: pts, nextFramePTS: next, clock: clock,
                                             refreshInterval: c.refresh, now: now)
            if decision == .drop { dropped.append(head); head += 1; continue }
            if decision == .present { shown.append(head); shownAt.append(k); head += 1 }
            break
        }
    }
    return (shown, shownAt, dropped)
}

/// Whether `holds` repeats `pattern`, starting anywhere in it.
private func repeats(_ holds: [Int], _ pattern: [Int]) -> Bool {
    (0..<pattern.count).contains { phase in
        holds.indices.allSatisfy { holds[$0] == pattern[($0 + phase) % pattern.count] }
    }
}

@Test(arguments: cadenceTable)
func presenterCadence(_ c: CadenceCase) {
    let refreshes = 3000   // 50-60 s of screen time
    let (shown, shownAt, dropped) = runPresenter(c, refreshes: refreshes)
    #expect(shownAt.first == 0, "the first refresh shows a frame")
    #expect(shownAt.last ?? 0 >= refreshes - 6, "frames keep coming to the end of the run")
    // How many refreshes each frame stays on screen repeats the expected cadence exactly.
    let holds = zip(shownAt.dropFirst(), shownAt).map { $0 - $1 }
    #expect(repeats(holds, c.holdPattern), "holds \(holds.prefix(12))… expected a repeat of \(c.holdPattern)")
    // Drops: as many as the rates force, spread evenly, never two frames in a row.
    let seen = shown.count + dropped.count
    let expectedDrops = seen * c.dropsPerCycle.dropped / c.dropsPerCycle.frames
    #expect(abs(dropped.count - expectedDrops) <= 1, "dropped \(dropped.count) of \(seen)")
    #expect(zip(dropped.dropFirst(), dropped).allSatisfy { $0 - $1 > 1 })
    #expect(shown == shown.sorted() && Set(shown).count == shown.count, "frames in order, each once")
    #expect(Set(shown).isDisjoint(with: dropped))
}

@Test func aStoppedClockNamesTheFrameOnScreen() {
    let frame40 = millis(40)
    // The screen already shows the frame put up for the flip ahead: the clock moves up to it.
    #expect(PausePosition.settle(position: millis(1559), shown: millis(1560), lastDropped: nil, head: millis(1600),
                                 frameDuration: frame40) == millis(1560))
    // Nothing dropped since the frame on screen: the clock stays (the pacer shows what is due).
    #expect(PausePosition.settle(position: millis(1510), shown: millis(1480), lastDropped: millis(1320), head: millis(1520),
                                 frameDuration: frame40) == nil)
    // The frame the clock names was dropped for the next, decoded and under a frame away: up to it.
    #expect(PausePosition.settle(position: millis(1198), shown: millis(1120), lastDropped: millis(1160), head: millis(1200),
                                 frameDuration: frame40) == millis(1200))
    #expect(PausePosition.settle(position: millis(1510), shown: millis(1320), lastDropped: millis(1480), head: millis(1520),
                                 frameDuration: frame40) == millis(1520), "CI's bed: 1.48 dropped, 1.52 queued")
    // Dropped, and the next frame due at the stopped clock: the pacer shows it, the clock stays.
    #expect(PausePosition.settle(position: millis(1510), shown: millis(1320), lastDropped: millis(1440), head: millis(1480),
                                 frameDuration: frame40) == nil)
    // Dropped and nothing decoded yet, or the next frame a long gap away: back to the screen.
    #expect(PausePosition.settle(position: millis(1510), shown: millis(1320), lastDropped: millis(1480), head: nil,
                                 frameDuration: frame40) == millis(1320))
    #expect(PausePosition.settle(position: millis(1510), shown: millis(1320), lastDropped: millis(1480), head: millis(6000),
                                 frameDuration: frame40) == millis(1320))
}

@Test func aClockStoppedAHairShortOfTheNextFrameNamesThatFrame() {
    let frame40 = millis(40)
    let shortOf240 = millis(2400) - MediaTime(value: 1, timescale: 1_000_000)
    // CI's bed: paused at 2.399999 s, 2.36 on screen, 2.40 queued: any reading rounds to 2.40.
    #expect(PausePosition.settle(position: shortOf240, shown: millis(2360), lastDropped: nil, head: millis(2400),
                                 frameDuration: frame40) == millis(2400))
    // Not decoded yet: the frame a frame after the screen's, which the stopped pacer shows when it comes.
    #expect(PausePosition.settle(position: shortOf240, shown: millis(2360), lastDropped: nil, head: nil,
                                 frameDuration: frame40) == millis(2400))
    // A millisecond or more short: a reading keeps it apart, the clock stays.
    #expect(PausePosition.settle(position: millis(2399), shown: millis(2360), lastDropped: nil, head: millis(2400),
                                 frameDuration: frame40) == nil)
    // A variable-rate file whose next frame comes later: nothing to move up to.
    #expect(PausePosition.settle(position: shortOf240, shown: millis(2360), lastDropped: nil, head: millis(2600),
                                 frameDuration: frame40) == nil)
    // The item's end after the frame on screen: nothing to move up to.
    #expect(PausePosition.settle(position: shortOf240, shown: millis(2360), lastDropped: nil, head: nil,
                                 frameDuration: frame40, endIsNext: true) == nil)
    // Exactly at the next frame already: it is due at the stopped clock.
    #expect(PausePosition.settle(position: millis(2400), shown: millis(2360), lastDropped: nil, head: millis(2400),
                                 frameDuration: frame40) == nil)
}

@Test func anEntryResumesWhereTheViewerLeftIt() {
    let frame = MediaTime(value: 1, timescale: 10)
    func at(_ clock: Int64, shown: Int64?, dropped: Int64? = nil, head: Int64? = nil, rate: Rational = Rational(1, 1),
            endIsNext: Bool = false) -> MediaTime {
        ViewerPosition.of(clock: millis(clock), shown: shown.map(millis), lastDropped: dropped.map(millis),
                          head: head.map(millis), frameDuration: frame, rate: rate, endIsNext: endIsNext)
    }
    // CI's loaded bed: the clock at 5.5 s, 4.4 on screen, nothing decoded past it: back at 4.4.
    #expect(at(5500, shown: 4400) == millis(4400))
    // Frames after the screen's dropped as late, or one due and still queued: behind, back at the screen.
    #expect(at(5500, shown: 4400, dropped: 5300, head: 5600) == millis(4400))
    #expect(at(5500, shown: 4400, head: 4500) == millis(4400))
    // The screen holds its frame on purpose: a long gap before the next frame of a
    // variable-rate file, or a video stream that ended before its sound: the clock's.
    #expect(at(5500, shown: 4400, head: 9000) == millis(5500))
    #expect(at(5500, shown: 4400, dropped: 4300, head: 9000) == millis(5500))
    #expect(at(90_000, shown: 4400, endIsNext: true) == millis(90_000))
    // A box that keeps up: the screen within two frames of the clock: the clock's.
    #expect(at(4460, shown: 4400) == millis(4460))
    #expect(at(4600, shown: 4400) == millis(4600))
    #expect(at(4601, shown: 4400) == millis(4400))
    // At rate 3 the clock covers three times the frames in the same flips, and a box that keeps
    // up drops those no flip takes: within six frames it is not behind; slower than 1, two.
    #expect(at(4900, shown: 4400, dropped: 4800, rate: Rational(3, 1)) == millis(4900))
    #expect(at(5000, shown: 4400, dropped: 4900, head: 5100, rate: Rational(3, 1)) == millis(5000))
    #expect(at(5001, shown: 4400, dropped: 4900, rate: Rational(3, 1)) == millis(4400))
    #expect(at(4601, shown: 4400, dropped: 4500, rate: Rational(1, 2)) == millis(4400))
    // Nothing shown yet, or a frame from before a trimmed start: the clock's.
    #expect(at(700, shown: nil) == millis(700))
    #expect(at(700, shown: -100) == millis(700))
    // The screen ahead of the clock (a frame put up for the flip to come): the clock's.
    #expect(at(4400, shown: 4440) == millis(4400))
}
