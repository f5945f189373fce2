import Foundation

/// The scheduler's memory between looks at the wall clock: it turns "the state now" into the
/// requests to make (switch playlist, play an insert, screen on or off), once each. The engine's
/// scheduler source calls `tick(now:)` at least every `pollInterval`, so a wall clock that
/// jumps is seen within a second and nothing waits on an interval computed before the jump.
///
/// Clock rules (FIELD-NOTES, "Media arriving by itself"; README, "Schedules"):
/// - A box without a real-time clock boots in 1970 and learns the time later: before
///   `earliestTrustedTime` the wall clock is not believed; the default playlist plays with the
///   screen on, and no insert fires.
/// - An insert fires when its instant passes between two ticks that are at most
///   `longestMissedInsert` apart. A jump forward (NTP's first sync, an operator setting the
///   date) does not replay the inserts of the skipped span, and a jump back does not repeat
///   the ones already played.
public struct ScheduleTicker: Sendable {
    public enum Action: Sendable, Equatable {
        /// Play `state.playlist` from now on (at the next seam, or at once: `Schedule.switchMode`).
        case switchPlaylist(ScheduleState)
        case power(on: Bool)
        case playInsert(TimedInsert)
    }

    /// 2025-01-01T00:00:00Z: a wall clock earlier than this has not been set.
    public static let earliestTrustedTime = Date(timeIntervalSince1970: 1_735_689_600)
    public static let pollInterval = 1.0
    /// Between ticks further apart than this, the clock jumped: no insert is replayed.
    public static let longestMissedInsert = 10.0

    public let evaluator: ScheduleEvaluator
    public private(set) var state: ScheduleState?
    private var lastTick: Date?

    public init(evaluator: ScheduleEvaluator) { self.evaluator = evaluator }

    public static func trusts(_ now: Date) -> Bool { now >= earliestTrustedTime }

    /// What to do now. The first tick always says which playlist and power state apply.
    public mutating func tick(now: Date) -> [Action] {
        let trusted = Self.trusts(now)
        let next = trusted ? evaluator.state(at: now)
            : ScheduleState(entry: nil, playlist: evaluator.schedule.defaultPlaylist, powerOn: true)
        var actions: [Action] = []
        if state?.powerOn != next.powerOn { actions.append(.power(on: next.powerOn)) }
        if state?.entry != next.entry || state?.playlist != next.playlist { actions.append(.switchPlaylist(next)) }
        if trusted, let last = lastTick, Self.trusts(last), now > last,
           now.timeIntervalSince(last) <= Self.longestMissedInsert, next.powerOn {
            actions += evaluator.inserts(after: last, through: now).map { .playInsert($0.insert) }
        }
        state = next
        lastTick = now
        return actions
    }

    /// How long the caller may sleep before the next tick: until the next change or insert,
    /// never longer than `pollInterval` (a jump of the wall clock is seen within it).
    public func secondsToNextTick(now: Date) -> Double {
        guard Self.trusts(now) else { return Self.pollInterval }
        var wait = Self.pollInterval
        if let change = evaluator.nextChange(after: now, withinDays: 1) { wait = Swift.min(wait, change.at.timeIntervalSince(now)) }
        if let insert = evaluator.nextInsert(after: now, withinDays: 1) { wait = Swift.min(wait, insert.at.timeIntervalSince(now)) }
        return Swift.max(0.001, wait)
    }
}
