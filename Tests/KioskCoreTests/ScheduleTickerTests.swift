import Foundation
import KioskCore
import Testing

/// The scheduler's rules for a wall clock that starts in 1970, jumps forward by years, or goes
/// back an hour.
@Suite struct ScheduleTickerTests {
    static func ticker() -> ScheduleTicker {
        let entries = [ScheduleEntry(name: "day", playlist: "day",
                                     window: ScheduleWindow(start: wall("08:00"), end: wall("20:00")))]
        let inserts = [TimedInsert(name: "noon", at: wall("12:00"), content: .item("noon.mp4"))]
        return ScheduleTicker(evaluator: ScheduleEvaluator(
            schedule: Schedule(entries: entries, defaultPlaylist: "default", inserts: inserts),
            clock: zone("UTC")))
    }

    static let defaultState = ScheduleState(entry: nil, playlist: "default", powerOn: true)
    static let dayState = ScheduleState(entry: 0, playlist: "day", powerOn: true)

    @Test func aClockStillIn1970PlaysTheDefaultUntilItIsSet() {
        var ticker = Self.ticker()
        let boot = Date(timeIntervalSince1970: 12 * 3600)   // 1970-01-01 12:00: the insert's time, the day's window
        #expect(ticker.tick(now: boot) == [.power(on: true), .switchPlaylist(Self.defaultState)])
        #expect(ticker.tick(now: boot.addingTimeInterval(1)) == [])
        // NTP: the clock jumps to 2026-11-23 12:00:30; the day window applies, the noon insert
        // of the skipped span is not replayed.
        #expect(ticker.tick(now: utc(2026, 11, 23, 12, 0).addingTimeInterval(30)) == [.switchPlaylist(Self.dayState)])
    }

    @Test func anInsertFiresOnceWhenItsTimePassesBetweenTicks() {
        var ticker = Self.ticker()
        var fired = 0
        var now = utc(2026, 11, 23, 11, 59)
        _ = ticker.tick(now: now)
        for _ in 0..<120 {
            now = now.addingTimeInterval(1)
            fired += ticker.tick(now: now).filter { if case .playInsert = $0 { true } else { false } }.count
        }
        #expect(fired == 1)
        // The clock goes back an hour: the day window still applies, noon is not played again
        // until the clock passes it on its own (ticks a second apart).
        now = now.addingTimeInterval(-3600)
        #expect(ticker.tick(now: now) == [])
        for _ in 0..<3700 {
            now = now.addingTimeInterval(1)
            fired += ticker.tick(now: now).filter { if case .playInsert = $0 { true } else { false } }.count
        }
        #expect(fired == 2)
    }

    @Test func aJumpForwardSwitchesAtOnceAndSkipsTheMissedInserts() {
        var ticker = Self.ticker()
        _ = ticker.tick(now: utc(2026, 11, 23, 7))
        #expect(ticker.state == Self.defaultState)
        // An operator sets the clock from 07:00 to 21:00: the day window came and went.
        #expect(ticker.tick(now: utc(2026, 11, 23, 21)) == [])
        #expect(ticker.tick(now: utc(2026, 11, 24, 9)) == [.switchPlaylist(Self.dayState)])
    }

    @Test func theWaitIsNeverLongerThanASecondNorPastTheNextChange() {
        let ticker = Self.ticker()
        #expect(ticker.secondsToNextTick(now: utc(2026, 11, 23, 3)) == 1)
        let justBefore = utc(2026, 11, 23, 8).addingTimeInterval(-0.25)
        #expect(abs(ticker.secondsToNextTick(now: justBefore) - 0.25) < 0.001)
        #expect(ticker.secondsToNextTick(now: Date(timeIntervalSince1970: 0)) == 1)
    }
}
