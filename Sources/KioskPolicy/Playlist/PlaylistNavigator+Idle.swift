extension PlaylistNavigator {
    /// The idle screen's line when nothing in the playlist can play.
    public func idleReason(retryAfter: MediaTime) -> String {
        let seconds = Int(retryAfter.seconds.rounded())
        let total = entries.count
        guard total > 0 else { return "Nothing to play: the playlist is empty; retrying in \(seconds) s" }
        // The cursor answers nothingPlayable only once every entry failed in the pass (and
        // then forgets the pass), so the count is all of them.
        return "No playable item: \(total) of \(total) failed; retrying in \(seconds) s"
    }
}
