/// Overrides in the program (#35; which override has the screen is `OverrideBook`'s, in the
/// service that sends these): an override takes the screen at once and its entries loop until
/// it ends; then the loop it interrupted comes back where it was.
/// - Begun while an insert or a trigger plays, the override ends that (the loop first
///   interrupted is still the one given back); begun while another override plays, it takes
///   its place.
/// - While it plays, an insert waits for the loop's next change after the override; a switch
///   replaces the loop given back (as during an insert). The navigator refuses a user's moves
///   and triggers meanwhile: the screen is the override's.
extension PlaylistProgram {
    /// Override `name` plays `entries` (looping) from now; `position`: where the entry playing
    /// is, for the loop to resume there. The step to begin.
    public mutating func beginOverride(_ name: String, entries: [PlaylistEntry], position: MediaTime?,
                                       cursor: inout PlaylistCursor) -> PlaylistStep {
        if interrupted == nil {
            interrupted = Interruption(cursor: cursor, position: cursor.currentIndex == nil ? nil : position)
        }
        // An insert or trigger playing ends here; the loop it would give back resumes after.
        interrupted?.restartsLoop = false
        waitingTrigger = nil
        playingTrigger = nil
        playingOverride = name
        cursor = PlaylistCursor(entries: entries, loopMode: .playlist, backoff: cursor.backoff)
        return cursor.advance()
    }

    /// The override playing ends: the step that gives the loop back; nil when none plays.
    public mutating func endOverride(_ cursor: inout PlaylistCursor) -> Step? {
        guard playingOverride != nil else { return nil }
        playingOverride = nil
        return giveBack(&cursor)
    }
}
