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
public struct PlaylistProgram: Sendable, Equatable {
    /// The loop an insert took over from, given back when the insert ends.
    public struct Interruption: Sendable, Equatable {
        public var cursor: PlaylistCursor
        /// Where the interrupted entry resumes (`cursor.currentIndex`); nil: the loop goes on
        /// with the entry after it (or from its first, for a list switched in meanwhile).
        public var position: MediaTime?
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
    public private(set) var interrupted: Interruption?

    public init() {}

    public var isPlayingInsert: Bool { interrupted != nil }

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
        guard let given = interrupted else { return Step(next) }
        if case .play = next { return Step(next) }
        // The insert is over (played, skipped to its end, or nothing in it could play).
        interrupted = nil
        cursor = given.cursor
        if let position = given.position, let index = cursor.currentIndex {
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
    public mutating func setLoopMode(_ mode: PlaybackConfig.LoopMode, cursor: inout PlaylistCursor) {
        if interrupted != nil { interrupted?.cursor.loopMode = mode } else { cursor.loopMode = mode }
        pendingSwitch?.loopMode = mode
    }

    /// The loop's list is replaced by a user (a control `load`): whatever waits is dropped and
    /// an insert playing ends where it is.
    public mutating func reset() {
        pendingSwitch = nil
        pendingInsert = []
        interrupted = nil
    }
}
