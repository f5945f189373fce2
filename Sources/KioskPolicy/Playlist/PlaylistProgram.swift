/// What plays next beyond the loop's own order: a playlist switch waiting for the next seam
/// (a schedule's change), and inserts that play once and then give the loop back (a timed
/// insert, `play_item_once`). Pure: the engine keeps one of these beside its `PlaylistCursor`
/// and asks it, not the cursor, for every item change; the answer may swap the cursor.
///
/// Rules (README, "Schedules"):
/// - A switch `atSeam` waits for the next item change of any kind (an item's end, a failure,
///   a user's next); `now` swaps at once, the new list from its first entry.
/// - An insert `now` interrupts the item playing; when the insert's entries have played (or
///   none of them could), that item comes back at the position it was interrupted at. An
///   insert `atSeam` plays after the item playing, and the loop then goes on with the entry
///   after it.
/// - While an insert plays, a switch is not taken in the middle of it: it replaces the loop
///   the insert returns to (its first entry then plays, not the interrupted item), and a
///   second insert is queued after the first.
/// - A trigger (`TriggerPlay`) interrupts at once like an insert `now`; when its entries have
///   played the loop resumes, or restarts from its first entry (`then: restart`). Fired while
///   another trigger's entries play, it replaces them (the loop it returns to stays the one
///   first interrupted) or is ignored, as its `during_trigger` says. Fired while a timed insert
///   or `play_item_once` plays, it waits for that insert to end (the schedule's content is
///   not cut short by a visitor's button), then plays; a second one waiting replaces the first
///   or is ignored, by the same rule. While the screen is off a trigger is refused
///   (`PlaylistNavigator`): a press at night is not kept for the morning.
public struct PlaylistProgram: Sendable, Equatable {
    /// The loop an insert took over from, given back when the insert ends.
    public struct Interruption: Sendable, Equatable {
        public var cursor: PlaylistCursor
        /// Where the interrupted entry resumes (`cursor.currentIndex`); nil: the loop goes on
        /// with the entry after it (or from its first, for a list switched in meanwhile).
        public var position: MediaTime?
        /// A trigger's `then: restart`: the loop begins again at its first entry.
        public var restartsLoop = false
    }

    /// The trigger whose entries open the insert playing: the first `entryCount` of its list
    /// (inserts queued behind it follow them).
    public struct PlayingTrigger: Sendable, Equatable {
        public var trigger: TriggerPlay
        public var entryCount: Int
    }

    /// A trigger fired while a timed insert played: it begins when that insert ends.
    public struct WaitingTrigger: Sendable, Equatable {
        public var trigger: TriggerPlay
        public var entries: [PlaylistEntry]
    }

    /// What became of a trigger fired (`insertTrigger`).
    public enum TriggerOutcome: Sendable, Equatable {
        /// Its first entry begins now.
        case begins(PlaylistStep)
        /// It waits for the insert playing to end.
        case waits
        /// Ignored (`during_trigger: ignore`): the line to log.
        case ignored(String)
    }

    /// The step to take and, when it gives an interrupted entry back, where in it to start.
    public struct Step: Sendable, Equatable {
        public var step: PlaylistStep
        public var resumeAt: MediaTime?

        public init(_ step: PlaylistStep, resumeAt: MediaTime? = nil) {
            self.step = step
            self.resumeAt = resumeAt
        }
    }

    /// A list to take at the next item change.
    public private(set) var pendingSwitch: PlaylistCursor?
    /// Inserts to play at the next item change.
    public private(set) var pendingInsert: [PlaylistEntry] = []
    /// Set while an insert plays.
    public internal(set) var interrupted: Interruption?
    /// Set while an insert that a trigger began plays.
    public internal(set) var playingTrigger: PlayingTrigger?
    /// A trigger waiting for the insert playing to end.
    public internal(set) var waitingTrigger: WaitingTrigger?
    /// The override on screen (`PlaylistProgram+Override`): its name; its entries loop in the
    /// cursor until it ends, and the loop it interrupted waits in `interrupted`.
    public internal(set) var playingOverride: String?

    public init() {}

    public var isPlayingInsert: Bool { interrupted != nil }

    /// What the cursor's entry at `index` plays as now: an override's, the trigger's (its first
    /// `entryCount` entries; inserts queued behind them are inserts), an insert's, or the loop's.
    public func playedAs(entryAt index: Int) -> PlayedAs {
        if let name = playingOverride { return .override(name) }
        if let playing = playingTrigger, index < playing.entryCount { return .trigger(playing.trigger.name) }
        return interrupted != nil ? .insert : .loop
    }

    /// The loop's own entries: `cursor`'s, or while an insert plays the ones it returns to.
    public func loopEntries(_ cursor: PlaylistCursor) -> [PlaylistEntry] { interrupted?.cursor.entries ?? cursor.entries }

    /// A new list for the loop (in the loop's mode). Returns the step to begin now (`now`,
    /// nothing in the way), or nil when it waits: for the next item change, or for the insert
    /// playing to end.
    public mutating func switchPlaylist(to entries: [PlaylistEntry], when timing: ScheduleSwitch,
                                        cursor: inout PlaylistCursor) -> PlaylistStep? {
        let loopMode = interrupted?.cursor.loopMode ?? cursor.loopMode
        let incoming = PlaylistCursor(entries: entries, loopMode: loopMode, backoff: cursor.backoff)
        if interrupted != nil {
            interrupted = Interruption(cursor: incoming, position: nil)
            pendingSwitch = nil
            return nil
        }
        guard timing == .now else {
            pendingSwitch = incoming
            return nil
        }
        pendingSwitch = nil
        cursor = incoming
        return cursor.advance()
    }

    /// Entries to play once. `position`: where the entry playing is now (nil when nothing
    /// plays); it resumes there after an insert `now`. Returns the step to begin now, or nil
    /// when the insert waits (for the next item change, or behind the insert playing).
    public mutating func insert(_ entries: [PlaylistEntry], when timing: ScheduleSwitch, position: MediaTime?,
                                cursor: inout PlaylistCursor) -> PlaylistStep? {
        guard !entries.isEmpty else { return nil }
        if playingOverride != nil {
            // Not into an override's loop: played when the loop comes back, at its next change.
            pendingInsert += entries
            return nil
        }
        if interrupted != nil {
            // Behind the insert playing: the insert's own list grows (its entry keeps playing).
            _ = cursor.replace(entries: cursor.entries + entries)
            return nil
        }
        guard timing == .now else {
            pendingInsert += entries
            return nil
        }
        let insertEntries = pendingInsert + entries
        pendingInsert = []
        interrupted = Interruption(cursor: cursor, position: cursor.currentIndex == nil ? nil : position)
        cursor = PlaylistCursor(entries: insertEntries, loopMode: .none, backoff: cursor.backoff)
        return cursor.advance()
    }

    /// A trigger's entries to play once, at once (`TriggerPlay`'s rules, in the type's comment).
    /// `position`: where the entry playing is now, for `then: resume`.
    public mutating func insertTrigger(_ entries: [PlaylistEntry], trigger: TriggerPlay, position: MediaTime?,
                                       cursor: inout PlaylistCursor) -> TriggerOutcome {
        guard !entries.isEmpty else { return .ignored("trigger '\(trigger.name)' has nothing to play") }
        guard var given = interrupted else {
            interrupted = Interruption(cursor: cursor, position: cursor.currentIndex == nil ? nil : position,
                                       restartsLoop: trigger.then == .restart)
            return .begins(beginTrigger(trigger, entries, keeping: [], cursor: &cursor))
        }
        if let playing = playingTrigger, let index = cursor.currentIndex, index < playing.entryCount {
            guard trigger.duringTrigger == .replace else {
                return .ignored("trigger '\(trigger.name)' ignored: trigger '\(playing.trigger.name)' is playing "
                                + "(during_trigger: ignore)")
            }
            given.restartsLoop = trigger.then == .restart
            interrupted = given
            // Inserts queued behind the trigger playing stay queued behind this one.
            let behind = Array(cursor.entries.dropFirst(playing.entryCount))
            return .begins(beginTrigger(trigger, entries, keeping: behind, cursor: &cursor))
        }
        if let waiting = waitingTrigger, trigger.duringTrigger == .ignore {
            return .ignored("trigger '\(trigger.name)' ignored: trigger '\(waiting.trigger.name)' is waiting for "
                            + "the insert playing to end (during_trigger: ignore)")
        }
        waitingTrigger = WaitingTrigger(trigger: trigger, entries: entries)
        return .waits
    }

    /// The insert's cursor becomes the trigger's entries (then `behind`), from the first.
    private mutating func beginTrigger(_ trigger: TriggerPlay, _ entries: [PlaylistEntry], keeping behind: [PlaylistEntry],
                                       cursor: inout PlaylistCursor) -> PlaylistStep {
        playingTrigger = PlayingTrigger(trigger: trigger, entryCount: entries.count)
        cursor = PlaylistCursor(entries: entries + behind, loopMode: .none, backoff: cursor.backoff)
        return cursor.advance()
    }

    /// The step at an item change: what waits is taken first, then `move` asks the cursor
    /// (`advance()` at an item's end or failure, `next()` for a user's skip). An insert that
    /// has nothing more to play gives the loop back.
    public mutating func step(_ cursor: inout PlaylistCursor,
                              move: (inout PlaylistCursor) -> PlaylistStep = { $0.advance() }) -> Step {
        if interrupted == nil, !pendingInsert.isEmpty {
            // The loop goes on after the insert with the entry after this one, or with a list
            // switched in meanwhile from its first.
            interrupted = Interruption(cursor: pendingSwitch ?? cursor, position: nil)
            pendingSwitch = nil
            cursor = PlaylistCursor(entries: pendingInsert, loopMode: .none, backoff: cursor.backoff)
            pendingInsert = []
            return Step(cursor.advance())
        }
        if interrupted == nil, let incoming = pendingSwitch {
            pendingSwitch = nil
            cursor = incoming
            return Step(cursor.advance())
        }
        let next = move(&cursor)
        guard interrupted != nil else { return Step(next) }
        if case .play = next { return Step(next) }
        playingOverride = nil   // an override of which nothing could play gives the loop back
        return giveBack(&cursor)
    }

    /// The insert (or override) is over: a trigger waiting begins, else the loop comes back,
    /// at the interrupted entry's position or from its first (`then: restart`).
    mutating func giveBack(_ cursor: inout PlaylistCursor) -> Step {
        guard let given = interrupted else { return step(&cursor) }
        // The insert is over (played, skipped to its end, or nothing in it could play).
        if let waiting = waitingTrigger {
            waitingTrigger = nil
            interrupted?.restartsLoop = waiting.trigger.then == .restart
            let first = beginTrigger(waiting.trigger, waiting.entries, keeping: [], cursor: &cursor)
            if case .play = first { return Step(first) }
        }
        let returnTo = interrupted ?? given
        interrupted = nil
        playingTrigger = nil
        if returnTo.restartsLoop {
            cursor = PlaylistCursor(entries: returnTo.cursor.entries, loopMode: returnTo.cursor.loopMode,
                                    backoff: returnTo.cursor.backoff)
            return step(&cursor)
        }
        cursor = returnTo.cursor
        if let position = returnTo.position, let index = cursor.currentIndex {
            return Step(.play(index), resumeAt: position)
        }
        return step(&cursor)
    }

    /// A reload's new list for the loop. Without an insert playing, `cursor` takes it and the
    /// outcome says what became of its entry; while an insert plays, the loop it returns to
    /// takes it (its entry resumes only if still there) and the answer is nil: nothing changes
    /// on screen.
    public mutating func replaceLoopEntries(_ entries: [PlaylistEntry], cursor: inout PlaylistCursor) -> ReplaceOutcome? {
        guard var given = interrupted else { return cursor.replace(entries: entries) }
        if case .keptCurrent = given.cursor.replace(entries: entries) {} else { given.position = nil }
        interrupted = given
        return nil
    }

    /// A reload's loop mode: the loop's, never an insert's (which plays once).
    public mutating func setLoopMode(_ mode: PlaylistLoopMode, cursor: inout PlaylistCursor) {
        if interrupted != nil { interrupted?.cursor.loopMode = mode } else { cursor.loopMode = mode }
        pendingSwitch?.loopMode = mode
    }

    /// The loop's list is replaced by a user (a control `load`): whatever waits is dropped and
    /// an insert playing ends where it is. The new list loops as the loop did: the cursor
    /// playing may be an insert's, which plays once (a load during a trigger played its list
    /// once, then the screen froze on its last frame for good).
    public mutating func reset(cursor: inout PlaylistCursor) {
        if let loop = interrupted?.cursor.loopMode { cursor.loopMode = loop }
        pendingSwitch = nil
        pendingInsert = []
        interrupted = nil
        playingTrigger = nil
        waitingTrigger = nil
        playingOverride = nil
    }
}
