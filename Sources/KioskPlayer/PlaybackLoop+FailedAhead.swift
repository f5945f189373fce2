import KioskCore

/// Failures found ahead. The next item is prepared while the current one plays; when that
/// crosses into the next pass (the playlist wraps), a failure found there belongs to the next
/// pass, which the cursor has not started yet: marked now, it would be forgotten at the wrap,
/// and the item would be opened again and again (for a dead server, a connect and a log line
/// every second). `failedAhead` carries such failures to the step that takes them: one line
/// per bad item per pass, and the good item after it is prepared in time for its seam.
extension PlaybackLoop {
    /// What `advanceCursor()` will answer, and the entry it will play, without moving anything.
    func previewAdvance() -> (next: PlaylistProgram.Step, entry: PlaylistEntry?) {
        var previewCursor = cursor
        var previewProgram = program
        let next = advance(&previewCursor, &previewProgram)
        guard case .play(let index) = next.step else { return (next, nil) }
        return (next, previewCursor.entries[index])
    }

    /// The next step at an item's end or failure (`move` is the cursor's `advance()`), or a
    /// user's skip (`next()`), passing over the failures found ahead. The program (a switch
    /// waiting for this seam, an insert ending) answers first.
    func advanceCursor(move: (inout PlaylistCursor) -> PlaylistStep = { $0.advance() }) -> PlaylistProgram.Step {
        advance(&cursor, &program, move: move)
    }

    private func advance(_ target: inout PlaylistCursor, _ plan: inout PlaylistProgram,
                         move: (inout PlaylistCursor) -> PlaylistStep = { $0.advance() }) -> PlaylistProgram.Step {
        var next = plan.step(&target, move: move)
        var passedOver = 0
        while next.resumeAt == nil, case .play(let index) = next.step, failedAhead.contains(index),
              passedOver < target.entries.count {
            target.markFailed(index)
            next = plan.step(&target)
            passedOver += 1
        }
        return next
    }
}
