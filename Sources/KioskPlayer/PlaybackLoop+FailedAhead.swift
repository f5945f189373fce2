import KioskCore

/// Failures found ahead. The next item is prepared while the current one plays; when that
/// crosses into the next pass (the playlist wraps), a failure found there belongs to the next
/// pass, which the cursor has not started yet: marked now, it would be forgotten at the wrap,
/// and the item would be opened again and again (for a dead server, a connect and a log line
/// every second). `failedAhead` carries such failures to the step that takes them: one line
/// per bad item per pass, and the good item after it is prepared in time for its seam.
extension PlaybackLoop {
    /// What `advanceCursor()` will answer, without moving the cursor.
    func previewAdvance() -> PlaylistStep {
        var preview = cursor
        return advance(&preview)
    }

    /// The cursor's next step at an item's end or failure, passing over the failures found ahead.
    func advanceCursor() -> PlaylistStep {
        advance(&cursor)
    }

    private func advance(_ target: inout PlaylistCursor) -> PlaylistStep {
        var step = target.advance()
        var passedOver = 0
        while case .play(let index) = step, failedAhead.contains(index), passedOver < target.entries.count {
            target.markFailed(index)
            step = target.advance()
            passedOver += 1
        }
        return step
    }
}
