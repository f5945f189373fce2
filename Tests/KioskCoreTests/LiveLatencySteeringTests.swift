import Foundation
import Testing
@testable import KioskBasics
@testable import KioskPolicy

@Suite("A live stream's buffer kept within its latency: 1 % faster or slower, judged on its floor")
struct LiveLatencySteeringTests {
    static func s(_ value: Double) -> MediaTime { MediaTime(seconds: value, timescale: 1000) }

    /// Feeds `buffered(t)` every 40 ms from `from` to `to` seconds; returns the paces it changed to, with when.
    static func run(_ steering: inout LiveLatencySteering, from: Double, to: Double, _ buffered: (Double) -> Double) -> [(Double, LiveLatencySteering.Pace)] {
        var changes: [(Double, LiveLatencySteering.Pace)] = []
        var t = from
        while t < to {
            if let pace = steering.observe(buffered: s(buffered(t)), atHost: s(t)) { changes.append((t, pace)) }
            t += 0.04
        }
        return changes
    }

    @Test func nothingIsDecidedBeforeAWindowHasPassed() {
        var steering = LiveLatencySteering(latency: Self.s(0.3))
        #expect(Self.run(&steering, from: 100, to: 109.9) { _ in 3.0 }.isEmpty)
        #expect(steering.floor == nil)
        let changes = Self.run(&steering, from: 109.9, to: 111) { _ in 3.0 }
        #expect(changes.map(\.1) == [.faster] && changes[0].0 >= 110)
    }

    @Test func aBufferOverTheBandPlaysFasterUntilItsFloorIsBackPastAQuarterOfTheBand() {
        var steering = LiveLatencySteering(latency: Self.s(0.3))
        // 2 s behind after a pause, then draining at 1 % once faster.
        var buffered = 2.3
        var changes: [(Double, LiveLatencySteering.Pace)] = []
        var t = 0.0
        while t < 300 {
            if steering.pace == .faster { buffered -= 0.04 * 0.01 }
            if let pace = steering.observe(buffered: Self.s(buffered), atHost: Self.s(t)) { changes.append((t, pace)) }
            t += 0.04
        }
        #expect(changes.map(\.1) == [.faster, .normal])
        // Back to normal once the floor is at most 0.675 s: 2.3 - 0.675 = 1.625 s at 1 %.
        if changes.count == 2 { #expect(abs(changes[1].0 - changes[0].0 - 162.5) < 1, "\(changes)") }
    }

    @Test func burstsOfWholeSegmentsAreJudgedByTheirFloor() {
        var steering = LiveLatencySteering(latency: Self.s(0.3))
        // A 6 s HLS segment arriving at once: 0.5 s buffered just before, 6.5 s just after.
        #expect(Self.run(&steering, from: 0, to: 60) { t in 0.5 + 6 - t.truncatingRemainder(dividingBy: 6) }.isEmpty)
        #expect(steering.pace == .normal)
    }

    @Test func aBufferUnderTheLatencyPlaysSlowerUntilItIsAQuarterOfTheBandIn() {
        var steering = LiveLatencySteering(latency: Self.s(0.5))
        var buffered = 0.4
        var changes: [(Double, LiveLatencySteering.Pace)] = []
        var t = 0.0
        while t < 120 {
            if steering.pace == .slower { buffered += 0.04 * 0.01 }
            if let pace = steering.observe(buffered: Self.s(buffered), atHost: Self.s(t)) { changes.append((t, pace)) }
            t += 0.04
        }
        // In at 0.625 s (0.225 s at 1 %: 22.5 s), once the window has forgotten the lower
        // samples (10 s more: it ends 0.1 s further in, inside the band).
        #expect(changes.map(\.1) == [.slower, .normal], "\(changes)")
        if changes.count == 2 { #expect(abs(changes[1].0 - changes[0].0 - 32.5) < 1, "\(changes)") }
        #expect(buffered < 0.8, "within the band: \(buffered)")
    }

    @Test func withinTheBandNothingChanges() {
        var steering = LiveLatencySteering(latency: Self.s(0.3))
        #expect(Self.run(&steering, from: 0, to: 120) { t in 0.55 + 0.2 * sin(t) }.isEmpty)
    }

    @Test func aRestartGoesBackToNormalAndWaitsAWindowAgain() {
        var steering = LiveLatencySteering(latency: Self.s(0.3))
        #expect(Self.run(&steering, from: 0, to: 11) { _ in 3 }.map(\.1) == [.faster])
        #expect(steering.restart() == .normal)
        #expect(steering.restart() == nil, "said once")
        #expect(Self.run(&steering, from: 20, to: 29.9) { _ in 3 }.isEmpty)
        #expect(Self.run(&steering, from: 29.9, to: 31) { _ in 3 }.map(\.1) == [.faster])
    }

    @Test func thePacesAreOnePercentOfSoundOrClock() {
        #expect(LiveLatencySteering.Pace.faster.soundCompensationPPM == -10_000)
        #expect(LiveLatencySteering.Pace.slower.soundCompensationPPM == 10_000)
        #expect(LiveLatencySteering.Pace.normal.soundCompensationPPM == 0)
        #expect(LiveLatencySteering.Pace.faster.clockFactor == Rational(101, 100))
        #expect(LiveLatencySteering.Pace.slower.clockFactor == Rational(99, 100))
        #expect(LiveLatencySteering.Pace.normal.clockFactor == .one)
    }
}
