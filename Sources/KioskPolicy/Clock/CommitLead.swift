/// How close to its vblank the presenter asks for a drawn frame's flip, on a screen whose flips
/// land on vblanks.
///
/// The frame pacer wakes for a frame half a refresh before it is due (on a vblank grid, early
/// by its draw too); a frame drawn and flipped at once was committed up to a whole refresh
/// before the vblank that shows it, and until that flip completes the screen takes nothing
/// else. An override asked for in that time waited for the flip, then for the next refresh: up
/// to two refreshes (issue 35 measured 26 % of 1,000 armed overrides behind a committed flip).
/// Drawn at once but committed only `seconds` before its vblank, the frame leaves the screen
/// free for a request until then, as a compositor's repaint window does; a request that comes
/// first puts its own picture up instead. The pacer's aim keeps the same kind of margin
/// (FramePresenter+Moment), with a ceiling of a quarter refresh.
///
/// The price is margin: a wake-up late on a loaded box misses the vblank and the frame comes a
/// refresh late. So the lead grows by `step` at a miss (up to `ceiling`, a refresh unless
/// told: then the old behaviour) and shrinks back by half a step after `calmFlips` held flips
/// in a row on time, never below `floor`. Additive both ways: a sporadic miss costs a
/// millisecond for some seconds, not a doubled lead for minutes, while a box that misses often
/// climbs a step a miss.
///
/// With `missesToRise` above one, only misses that come together raise it: that many within
/// `calmFlips` held flips. One that does not neither counts as calm nor restarts the count. A
/// host that wakes a thread a few ms late now and then (a VM's vCPU descheduled: 0.2-1.8 % of
/// real-time wake-ups over 1 ms on the 2-core bed, idle or loaded) misses as often at 2 ms as
/// at 1 and gains nothing from a wider lead, while every request in the lead waits a refresh
/// behind the committed flip (#35's benchmark: sporadic misses held the lead at 3-8 ms, and
/// the armed overrides' tail was those requests). A driver that latches early misses every
/// flip and still climbs, a step every `missesToRise` flips. Pure; the presenter keeps one.
public struct CommitLead: Sendable, Equatable {
    /// The margin kept before the vblank, in seconds.
    public private(set) var seconds: Double
    public let floor: Double
    /// The largest lead.
    public let ceiling: Double
    public let refreshInterval: Double
    /// Held flips on time in a row before the lead shrinks.
    public let calmFlips: Int
    /// What a miss adds.
    public let step: Double
    /// Misses within `calmFlips` held flips that raise the lead a step.
    public let missesToRise: Int
    /// Vblanks missed by a held commit since the start.
    public private(set) var misses = 0
    private var onTimeInARow = 0
    /// Held flips recorded since the start, and which of them missed since the last rise
    /// (pruned to the last `calmFlips` flips at each miss).
    private var flips = 0
    private var recentMisses: [Int] = []

    /// - Parameters:
    ///   - refreshInterval: the screen's, in seconds.
    ///   - floor: the smallest lead: 1 ms leaves a KMS driver time to program a dumb buffer's
    ///     plane before the vblank (i915 evades the last ~0.1 ms); a driver that latches earlier
    ///     shows it in misses, and the lead climbs.
    ///   - step: 1 ms.
    ///   - calmFlips: 120 is four seconds of a 30 fps video: sporadic misses (the override
    ///     benchmark saw one every 30-60 s on an idle 2-core machine) leave the lead at its
    ///     floor most of the time; at 300, seven misses in five minutes held it at 4-6 ms.
    ///   - ceiling: the largest lead (a refresh when not given: then the old behaviour).
    ///   - missesToRise: misses within `calmFlips` flips that raise the lead (1: each does).
    public init(refreshInterval: Double, floor: Double = 0.001, step: Double = 0.001, calmFlips: Int = 120,
                ceiling: Double? = nil, missesToRise: Int = 1) {
        precondition(refreshInterval > 0 && floor >= 0 && step > 0 && calmFlips > 0 && missesToRise > 0)
        self.missesToRise = missesToRise
        self.refreshInterval = refreshInterval
        self.ceiling = Swift.min(ceiling ?? refreshInterval, refreshInterval)
        self.floor = Swift.min(floor, self.ceiling)
        self.step = step
        self.calmFlips = calmFlips
        seconds = self.floor
    }

    /// When to ask for the flip of a frame drawn for the vblank at `flip` (host seconds).
    public func commitMoment(flip: Double) -> Double { flip - seconds }

    /// A held frame was aimed at the vblank `aimedAt` and its flip completed at `flippedAt`.
    public mutating func record(aimedAt: Double, flippedAt: Double) {
        flips += 1
        if flippedAt > aimedAt + refreshInterval / 2 {
            misses += 1
            recentMisses = recentMisses.filter { flips - $0 < calmFlips } + [flips]
            // A miss alone (fewer than `missesToRise` together) leaves the calm count as it is:
            // restarted, misses every 60-119 flips would hold a raised lead up for good.
            guard recentMisses.count >= missesToRise else { return }
            recentMisses.removeAll()
            onTimeInARow = 0
            seconds = Swift.min(ceiling, seconds + step)
            return
        }
        onTimeInARow += 1
        guard onTimeInARow >= calmFlips else { return }
        onTimeInARow = 0
        seconds = Swift.max(floor, seconds - step / 2)
    }
}
