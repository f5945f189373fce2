import Testing
@testable import KioskBasics
@testable import KioskCore
@testable import KioskPicture
@testable import KioskPolicy

/// `GPIOEdgeDebouncer` on synthetic kernel timestamps: a press fires once at its first edge, its
/// bounces and its release's are ignored, and the next press after a quiet window fires again.
@Suite("GPIO edge debounce")
struct GPIOEdgeDebouncerTests {
    /// Feeds (rising, time) pairs; the times of the edges that fired.
    private func fired(_ debouncer: inout GPIOEdgeDebouncer, _ edges: [(Bool, Double)]) -> [Double] {
        edges.compactMap { debouncer.fires(rising: $0.0, at: $0.1) ? $0.1 : nil }
    }

    /// A button on a pull-up: press falls and bounces for 8 ms, release rises and bounces.
    private let press: [(Bool, Double)] = [
        (false, 10.000), (true, 10.002), (false, 10.003), (true, 10.006), (false, 10.008),   // press, bouncing
        (true, 10.400), (false, 10.401), (true, 10.405),                                     // release, bouncing
    ]

    @Test func aBouncingPressFiresOnceAtItsFirstEdge() {
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 0.05)
        let firstPress = fired(&debouncer, press)
        #expect(firstPress == [10.000])
        // The next press, long after: fires again.
        let nextPress = fired(&debouncer, press.map { ($0.0, $0.1 + 2) })
        #expect(nextPress == [12.000])
    }

    @Test func aBurstLongerThanTheWindowFiresOnceWhileItsGapsAreShorter() {
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 0.05)
        // Ten toggles 30 ms apart: 0.3 s of bouncing, never quiet for 50 ms.
        let burst = (0..<10).map { (index: Int) in (index % 2 == 1, 1.0 + Double(index) * 0.03) }
        let burstFired = fired(&debouncer, burst)
        #expect(burstFired == [1.0])
        // Quiet for just over the window after the burst's last edge (1.27): the next fall fires.
        let afterQuiet = debouncer.fires(rising: false, at: 1.33)
        #expect(afterQuiet)
    }

    @Test func onlyTheWantedEdgeFires() {
        var rising = GPIOEdgeDebouncer(edge: .rising, window: 0.05)
        let risingFired = fired(&rising, press)
        #expect(risingFired == [10.400], "the release of a pull-up button is its rising edge")
        var both = GPIOEdgeDebouncer(edge: .both, window: 0.05)
        let bothFired = fired(&both, press)
        #expect(bothFired == [10.000, 10.400])
    }

    @Test func anEdgeAfterQuietButOfTheOtherKindFiresNothingAndStillCountsAsActivity() {
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 0.05)
        let rise = debouncer.fires(rising: true, at: 5.0)
        #expect(!rise)
        let bounce = debouncer.fires(rising: false, at: 5.01)
        #expect(!bounce, "a fall 10 ms after a rise is a bounce")
        let laterFall = debouncer.fires(rising: false, at: 5.2)
        #expect(laterFall)
    }

    @Test func aPressWhoseFirstEdgeIsReadLateAsARiseStillFiresOnce() {
        // CI's bed, a slow guest: after a release (rise at 91.2) and quiet, a bouncing press's
        // first edge was named by a read made after the contact bounced back up, so it came as
        // another rise; the press was lost. The rise on a line already high means a fall came first.
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 1)
        let before = fired(&debouncer, [(false, 88.7), (true, 91.2)])
        #expect(before == [88.7])
        let burst = fired(&debouncer, [(true, 93.50), (false, 93.55), (true, 93.60), (false, 93.70)])
        #expect(burst == [93.50])
        // The same on a rising trigger: a fall on a line already low means a rise came first.
        var rising = GPIOEdgeDebouncer(edge: .rising, window: 1)
        let risingFired = fired(&rising, [(true, 1.0), (false, 3.0), (false, 5.0), (true, 5.1)])
        #expect(risingFired == [1.0, 5.0])
    }

    @Test func theFiredEdgeIsTheOneTheTriggerWantsAlsoWhenReadLateAsItsOpposite() {
        // CI's bed again: the press read late as a rise fired, and the log said "rising edge"
        // on a falling trigger. The edge named is the trigger's, with active low applied.
        var falling = GPIOEdgeDebouncer(edge: .falling, window: 1)
        let named = [(false, 1.0), (true, 3.0), (true, 5.0)].map { falling.firedEdge(rising: $0.0, at: $0.1) }
        #expect(named == [.falling, nil, .falling])
        var both = GPIOEdgeDebouncer(edge: .both, activeLow: true, window: 0)
        let bothNamed = [(true, 1.0), (false, 2.0)].map { both.firedEdge(rising: $0.0, at: $0.1) }
        #expect(bothNamed == [.falling, .rising], "active low: the pin rising is the line falling")
    }

    @Test func activeLowSwapsWhatRisingAndFallingMean() {
        // A sensor whose line is active low: the pin falling is the logical line rising.
        var debouncer = GPIOEdgeDebouncer(edge: .rising, activeLow: true, window: 0.05)
        let swapped = fired(&debouncer, press)
        #expect(swapped == [10.000])
        var line = GPIOEdgeDebouncer(GPIOTriggerLine(chip: "gpiochip0", line: .offset(1), edge: .falling, activeLow: true))
        let configured = fired(&line, press)
        #expect(configured == [10.400])
    }

    @Test func noWindowFiresEveryWantedEdge() {
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 0)
        let everyFall = fired(&debouncer, press)
        #expect(everyFall == [10.000, 10.003, 10.008, 10.401])
        #expect(GPIOEdgeDebouncer(edge: .both, window: -1).window == 0, "a negative window is none")
    }

    @Test func aTimestampGoingBackwardsCountsAsQuiet() {
        var debouncer = GPIOEdgeDebouncer(edge: .falling, window: 0.05)
        let first = debouncer.fires(rising: false, at: 100)
        #expect(first)
        let afterClockSetBack = debouncer.fires(rising: false, at: 3)
        #expect(afterClockSetBack, "a clock set back does not silence the line")
        let bounceAfter = debouncer.fires(rising: false, at: 3.01)
        #expect(!bounceAfter)
    }

    @Test func theDefaultLineIsAFallingEdgeWithFiftyMilliseconds() {
        let debouncer = GPIOEdgeDebouncer(GPIOTriggerLine(chip: "gpiochip0", line: .offset(3)))
        #expect(debouncer.edge == .falling && debouncer.window == 0.05 && !debouncer.activeLow)
    }
}
