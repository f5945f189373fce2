import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

private func seconds(_ s: Int64) -> MediaTime { MediaTime(value: s, timescale: 1) }
private func millis(_ ms: Int64) -> MediaTime { MediaTime(value: ms, timescale: 1000) }
/// An arbitrary CLOCK_MONOTONIC reading (uptime of ~3.4 h) so nothing relies on starting at 0.
private let bootHost = MediaTime(hostNanoseconds: 12_345_678_901_234)
private let one = Rational.one
private func magnitude(_ t: MediaTime) -> MediaTime { t < .zero ? .zero - t : t }

@Test func pauseFreezesAndResumeContinuesExactly() {
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one)
    #expect(clock.mediaTime(atHost: bootHost + millis(3500)) == millis(3500))
    clock.pause(atHost: bootHost + millis(3500))
    #expect(!clock.isRunning)
    #expect(clock.mediaTime(atHost: bootHost + seconds(100)) == millis(3500))
    #expect(clock.hostTime(forMediaTime: seconds(5)) == nil, "a stopped clock never reaches a later time")
    clock.setRate(one, atHost: bootHost + seconds(100))
    #expect(clock.mediaTime(atHost: bootHost + seconds(100)) == millis(3500))
    #expect(clock.mediaTime(atHost: bootHost + millis(101_250)) == millis(4750))
    #expect(clock.hostTime(forMediaTime: seconds(5)) == bootHost + millis(101_500))
}

@Test(arguments: [Rational(2, 1), Rational(1, 2), Rational(1, 4), Rational(4, 1), Rational(3, 2)])
func rateChangeReanchorsWithoutAJump(_ newRate: Rational) {
    var clock = PlaybackClock(mediaTime: seconds(7), hostTime: bootHost, rate: one)
    let change = bootHost + MediaTime(value: 1, timescale: 3)   // not on a round number
    let before = clock.mediaTime(atHost: change)
    clock.setRate(newRate, atHost: change)
    #expect(clock.mediaTime(atHost: change) == before, "no jump at the change")
    #expect(clock.mediaTime(atHost: change + seconds(10)) == before + seconds(10) * newRate)
    let target = before + seconds(3)
    #expect(clock.hostTime(forMediaTime: target) == change + seconds(3) * newRate.inverted)
}

@Test func negativeAndUnsetRatesStopTheClock() {
    var clock = PlaybackClock(mediaTime: seconds(1), hostTime: bootHost, rate: Rational(-1, 1))
    #expect(!clock.isRunning)
    clock.setRate(Rational(1, 0), atHost: bootHost)
    #expect(clock.mediaTime(atHost: bootHost + seconds(5)) == seconds(1))
}

@Test func seekAndRebase() {
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one)
    clock.seek(to: seconds(42), atHost: bootHost + seconds(1))
    #expect(clock.mediaTime(atHost: bootHost + seconds(2)) == seconds(43))
    // A seam at 43 s: the next item's 0 follows without a host-time gap.
    clock.rebase(from: seconds(43), to: .zero)
    #expect(clock.mediaTime(atHost: bootHost + seconds(2)) == .zero)
    #expect(clock.mediaTime(atHost: bootHost + millis(2500)) == millis(500))
}

/// Loops a 300-frame NTSC clip (10.01 s) for a simulated day at `rate`, pausing 5.5 s every
/// hour, and returns the largest difference between where the clock puts each seam and where
/// exact arithmetic says it belongs.
private func loopForADay(rate: Rational) -> (maximumError: MediaTime, loops: Int, pauses: Int) {
    let itemDuration = MediaTime(value: 300 * 1001, timescale: 30000)
    let pauseLength = MediaTime(value: 11, timescale: 2)
    let day = seconds(86_400)
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: rate)
    var loopStartHost = bootHost   // ideal host time of the current loop's media 0
    var nextPause = seconds(3600)
    var maximumError = MediaTime.zero
    var loops = 0, pauses = 0
    while loopStartHost - bootHost < day {
        let hostPerLoop = itemDuration * rate.inverted
        if loopStartHost + hostPerLoop - bootHost > nextPause {
            // Pause mid-item: freeze, wait, resume; the rest of the loop shifts by the pause.
            let pauseHost = bootHost + nextPause
            clock.pause(atHost: pauseHost)
            clock.setRate(rate, atHost: pauseHost + pauseLength)
            loopStartHost += pauseLength
            nextPause += seconds(3600)
            pauses += 1
        }
        let idealSeam = loopStartHost + hostPerLoop
        guard let seam = clock.hostTime(forMediaTime: itemDuration) else { return (seconds(999), loops, pauses) }
        maximumError = Swift.max(maximumError, magnitude(seam - idealSeam))
        // A frame in the middle of the item: on time too.
        // Frame 151 is not a whole number of nanoseconds: its host time is rounded, once.
        let frame = MediaTime(value: 151 * 1001, timescale: 30000)
        if let shown = clock.hostTime(forMediaTime: frame) {
            maximumError = Swift.max(maximumError, magnitude(shown - (loopStartHost + frame * rate.inverted)))
        }
        clock.rebase(from: itemDuration, to: .zero)
        loopStartHost = idealSeam
        loops += 1
    }
    return (maximumError, loops, pauses)
}

@Test(arguments: [Rational.one, Rational(2, 1), Rational(1, 2)])
func loopingForADayOnTheMonotonicClockDoesNotDrift(_ rate: Rational) {
    let (maximumError, loops, pauses) = loopForADay(rate: rate)
    #expect(pauses == 24)
    let expectedLoops = Int(((86_400 - Double(pauses) * 5.5) * rate.doubleValue / 10.01).rounded(.up))
    #expect(abs(loops - expectedLoops) <= 1)
    #expect(maximumError <= millis(1), "drifted \(maximumError.seconds) s at rate \(rate)")
    // The arithmetic is exact: the only error is rounding one host time to the nanosecond,
    // and it does not add up over 8000 loops.
    #expect(maximumError <= MediaTime(hostNanoseconds: 1), "error \(maximumError.seconds) s at rate \(rate)")
}

/// A deterministic generator for jitter (a 64-bit LCG), so failures reproduce.
private struct Jitter {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// Uniform in -amplitude...amplitude.
    mutating func next(amplitude: Double) -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * amplitude
    }
}

struct AudioDriftRun: Sendable {
    var maximumError = 0.0          // seconds, after the first 10 s
    var hourlyMeanErrors: [Double] = []
    var resyncs = 0
}

/// Plays a looping 10.01 s item for `hours` with a sound card whose crystal runs `ppm` fast,
/// observing "heard" positions every `interval` seconds with uniform jitter of ±`jitter`
/// seconds, and measures how far the clock is from what is really heard.
private func followAudio(hours: Int, rate: Rational, ppm: Double, interval: Double, jitter: Double) -> AudioDriftRun {
    let itemDuration = MediaTime(value: 300 * 1001, timescale: 30000)
    let itemSeconds = itemDuration.seconds
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: rate)
    var noise = Jitter()
    var run = AudioDriftRun()
    var loopIndex = 0.0
    var hourSum = 0.0, hourCount = 0
    let stepsPerHour = Int((3600 / interval).rounded())
    let steps = hours * stepsPerHour
    let intervalNanos = Int64((interval * 1e9).rounded())
    for step in 1...steps {
        let elapsedNanos = Int64(step) * intervalNanos
        let host = bootHost + MediaTime(hostNanoseconds: elapsedNanos)
        // What the speaker plays now, in seconds on the continuous timeline (reported below
        // as a pts in 48 kHz samples, the way the audio writer counts).
        let heardContinuous = Double(elapsedNanos) / 1e9 * rate.doubleValue * (1 + ppm / 1e6)
        while heardContinuous >= (loopIndex + 1) * itemSeconds {
            clock.rebase(from: itemDuration, to: .zero)   // the engine's seam
            loopIndex += 1
        }
        let heard = heardContinuous - loopIndex * itemSeconds
        let error = clock.mediaTime(atHost: host).seconds - heard
        if Double(elapsedNanos) / 1e9 > 10 {
            run.maximumError = Swift.max(run.maximumError, Swift.abs(error))
            hourSum += error
            hourCount += 1
        }
        if step % stepsPerHour == 0 {
            run.hourlyMeanErrors.append(hourSum / Double(hourCount))
            hourSum = 0; hourCount = 0
        }
        let reported = MediaTime(value: Int64(((heard + noise.next(amplitude: jitter)) * 48000).rounded()), timescale: 48000)
        if case .resynchronised = clock.observeAudio(reported, atHost: host), step > 1 { run.resyncs += 1 }
    }
    return run
}

@Test func audioMasterFollowsADriftingSoundCardForADay() {
    // 80 ppm is a poor crystal (7 s a day); delay reports jitter by ±0.5 ms. Observing every
    // 200 ms keeps the simulated day to a few seconds of test time; the engine observes more
    // often, which only smooths better.
    let run = followAudio(hours: 24, rate: .one, ppm: 80, interval: 0.2, jitter: 0.0005)
    #expect(run.hourlyMeanErrors.count == 24)
    #expect(run.maximumError < 0.001, "clock strayed \(run.maximumError * 1000) ms from the audio")
    #expect(run.resyncs == 0, "drift and jitter must be absorbed, not jumped over")
    let first = run.hourlyMeanErrors.first ?? .infinity, last = run.hourlyMeanErrors.last ?? .infinity
    #expect(Swift.abs(last - first) < 0.0001, "mean error moved from \(first) to \(last) s: drift")
    #expect(run.hourlyMeanErrors.allSatisfy { Swift.abs($0) < 0.0002 })
}

@Test(arguments: [Rational(2, 1), Rational(1, 2)])
func audioMasterFollowsAtOtherRates(_ rate: Rational) {
    let run = followAudio(hours: 1, rate: rate, ppm: -120, interval: 0.1, jitter: 0.0005)
    #expect(run.maximumError < 0.001, "clock strayed \(run.maximumError * 1000) ms at rate \(rate)")
    #expect(run.resyncs == 0)
}

@Test func aSmallDifferenceIsAbsorbedSmoothlyAndMonotonically() {
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one)
    let offset = millis(30)   // the audio is 30 ms ahead of the clock
    var previous = clock.mediaTime(atHost: bootHost)
    var largestStep = MediaTime.zero
    for ms in Int64(1)...8000 {
        let host = bootHost + millis(ms)
        let now = clock.mediaTime(atHost: host)
        #expect(now > previous, "time went back at \(ms) ms")
        largestStep = Swift.max(largestStep, now - previous)
        previous = now
        if ms % 20 == 0 { clock.observeAudio(millis(ms) + offset, atHost: host) }
    }
    // At most 10% faster than real time: 1.1 ms of media per ms.
    #expect(largestStep <= MediaTime(value: 11, timescale: 10_000))
    let remaining = magnitude(millis(8000) + offset - clock.mediaTime(atHost: bootHost + millis(8000)))
    #expect(remaining < MediaTime(value: 1, timescale: 10_000), "still \(remaining.seconds * 1000) ms behind after 8 s")
}

@Test func aLargeDifferenceJumps() {
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one)
    let host = bootHost + seconds(2)
    let outcome = clock.observeAudio(millis(1700), atHost: host)   // the audio lost 300 ms
    #expect(outcome == .resynchronised(error: .zero - millis(300)))
    #expect(clock.mediaTime(atHost: host) == millis(1700))
    #expect(clock.mediaTime(atHost: host + seconds(1)) == millis(2700))
}

@Test func withoutFurtherObservationsTheClockRunsAtTheNominalRate() {
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one)
    let outcome = clock.observeAudio(seconds(1) + millis(20), atHost: bootHost + seconds(1))
    #expect(outcome == .following(error: millis(20)))
    // The 20 ms are absorbed within the correction time (1 s); then the audio went away and
    // the monotonic clock leads at exactly rate 1.
    let later = clock.mediaTime(atHost: bootHost + seconds(3))
    #expect(magnitude(later - millis(3020)) < MediaTime(hostNanoseconds: 10))
    #expect(clock.mediaTime(atHost: bootHost + seconds(10)) - later == seconds(7))
    // hostTime inverts mediaTime on both sides of the end of the correction.
    for media in [millis(1010), millis(1500), millis(2019), millis(2500), seconds(9)] {
        guard let host = clock.hostTime(forMediaTime: media) else { Issue.record("clock stopped"); continue }
        #expect(magnitude(clock.mediaTime(atHost: host) - media) <= MediaTime(hostNanoseconds: 2))
    }
}

@Test func audioIsIgnoredWhileStopped() {
    var clock = PlaybackClock(mediaTime: seconds(4), hostTime: bootHost)
    #expect(clock.observeAudio(seconds(9), atHost: bootHost + seconds(1)) == .ignoredWhileStopped)
    #expect(clock.mediaTime(atHost: bootHost + seconds(1)) == seconds(4))
}

@Test func anOverEagerTuningStillRunsForward() {
    let tuning = PlaybackClock.Tuning(correctionTime: MediaTime(value: 1, timescale: 100),
                                      maximumCorrection: Rational(3, 1), resyncThreshold: seconds(1))
    #expect(tuning.maximumCorrection == Rational(1, 2))
    var clock = PlaybackClock(mediaTime: .zero, hostTime: bootHost, rate: one, tuning: tuning)
    // The audio is 900 ms behind: absorbed at half speed at most, never backwards.
    clock.observeAudio(.zero - millis(900), atHost: bootHost)
    let a = clock.mediaTime(atHost: bootHost + millis(100)), b = clock.mediaTime(atHost: bootHost + millis(200))
    #expect(a == millis(50) && b == millis(100))
    #expect(clock.hostTime(forMediaTime: millis(100)) == bootHost + millis(200))
}
