/// The engine's one answer to "what plays next": the loop's `PlaylistCursor`, the
/// `PlaylistProgram` beside it (a switch waiting for the seam, an insert playing), and the
/// failures found ahead. Pure; the presenter keeps one and asks it at every item change, and
/// asks `preview()` what that answer will be when it prepares the next item before the seam.
///
/// Failures found ahead: the next item is opened while the current one plays. When that
/// crosses into the next pass (the playlist wraps), a failure found there belongs to a pass the
/// cursor has not started: marked at once, the wrap would forget it and the item would be
/// opened again and again (for a dead server, a connect and a log line every second). They are
/// kept here until the step that takes them: one line per bad item per pass, and the good item
/// after it is prepared in time for its seam.
public struct PlaylistNavigator: Sendable, Equatable {
    public private(set) var cursor: PlaylistCursor
    public private(set) var program = PlaylistProgram()
    /// Entries that failed while being prepared for the step still to come.
    public private(set) var failedAhead: Set<Int> = []

    public init(cursor: PlaylistCursor) {
        self.cursor = cursor
    }

    public var entries: [PlaylistEntry] { cursor.entries }
    public var currentIndex: Int? { cursor.currentIndex }
    /// The loop's own entries (while an insert plays, the ones it returns to).
    public var loopEntries: [PlaylistEntry] { program.loopEntries(cursor) }

    /// The step at an item's end or failure (`move` is the cursor's `advance()`), or a user's
    /// skip (`next()`), passing over the failures found ahead. The program answers first.
    public mutating func advance(move: (inout PlaylistCursor) -> PlaylistStep = { $0.advance() }) -> PlaylistProgram.Step {
        var next = program.step(&cursor, move: move)
        var passedOver = 0
        while next.resumeAt == nil, case .play(let index) = next.step, failedAhead.contains(index),
              passedOver < cursor.entries.count {
            cursor.markFailed(index)
            next = program.step(&cursor)
            passedOver += 1
        }
        return next
    }

    /// What `advance()` will answer, and the entry it will play, without moving anything.
    public func preview() -> (next: PlaylistProgram.Step, entry: PlaylistEntry?) {
        var copy = self
        let next = copy.advance()
        guard case .play(let index) = next.step else { return (next, nil) }
        return (next, copy.cursor.entries[index])
    }

    /// What the entry at `index` will play as when `advance()` reaches it (an entry opened ahead
    /// of its turn and found unplayable is recorded before then: the program's state now is the
    /// entry playing's, a trigger's last entry's while the loop's comes next); nil when the next
    /// step plays no entry or another one.
    public func previewPlayedAs(entryAt index: Int) -> (playedAs: PlayedAs, isInsert: Bool)? {
        var copy = self
        guard case .play(let next) = copy.advance().step, next == index else { return nil }
        return (copy.program.playedAs(entryAt: index), copy.program.isPlayingInsert)
    }

    /// The entry prepared to follow failed: the step that reaches it passes over it.
    public mutating func noteFailedAhead(_ index: Int) { failedAhead.insert(index) }

    /// An entry began: the failures kept for the step that led to it are spent.
    public mutating func beganEntry() { failedAhead = [] }

    /// One log line per bad item per pass: the cursor skips it until the next pass.
    public mutating func markFailed(_ index: Int) { cursor.markFailed(index) }

    public mutating func previous() -> PlaylistStep { cursor.previous() }
    public mutating func jump(to index: Int, play: Int = 0) -> PlaylistStep? { cursor.jump(to: index, play: play) }

    /// The current entry is in its play `play` (from 0) of its `loop: N` (a synchronised join).
    public mutating func setPlayOfCurrent(_ play: Int) { cursor.setPlayOfCurrent(play) }

    /// A user's new list (a control `load`): what waited is dropped, an insert ends.
    public mutating func load(_ entries: [PlaylistEntry]) -> ReplaceOutcome {
        program.reset(cursor: &cursor)
        failedAhead = []   // indices of the old list
        return cursor.replace(entries: entries)
    }

    // The program's changes (PlaylistProgram says what each means).

    public mutating func switchPlaylist(to entries: [PlaylistEntry], when timing: ScheduleSwitch) -> PlaylistStep? {
        program.switchPlaylist(to: entries, when: timing, cursor: &cursor)
    }

    public mutating func insert(_ entries: [PlaylistEntry], when timing: ScheduleSwitch, position: MediaTime?) -> PlaylistStep? {
        program.insert(entries, when: timing, position: position, cursor: &cursor)
    }

    public mutating func beginOverride(_ name: String, entries: [PlaylistEntry], position: MediaTime?) -> PlaylistStep {
        program.beginOverride(name, entries: entries, position: position, cursor: &cursor)
    }

    public mutating func endOverride() -> PlaylistProgram.Step? { program.endOverride(&cursor) }

    public mutating func insertTrigger(_ entries: [PlaylistEntry], trigger: TriggerPlay,
                                       position: MediaTime?) -> PlaylistProgram.TriggerOutcome {
        program.insertTrigger(entries, trigger: trigger, position: position, cursor: &cursor)
    }

    /// A reload's list (kiosk.conf, a watched folder). The failures kept ahead were the old
    /// list's indices, and a reload forgets failures as the cursor does: kept, an entry that
    /// failed ahead (a file deleted as it was prepared) left its index marked, and the file
    /// that came to stand there was passed over at every retry. While an insert plays they are
    /// the insert's and stay.
    public mutating func replaceLoopEntries(_ entries: [PlaylistEntry]) -> ReplaceOutcome? {
        let outcome = program.replaceLoopEntries(entries, cursor: &cursor)
        if outcome != nil { failedAhead = [] }
        return outcome
    }

    public mutating func setLoopMode(_ mode: PlaylistLoopMode) {
        program.setLoopMode(mode, cursor: &cursor)
    }
}
