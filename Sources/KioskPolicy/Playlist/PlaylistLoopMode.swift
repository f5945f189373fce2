/// `playback.loop`: what the playlist does at its end (and whether an item repeats).
public enum PlaylistLoopMode: String, Sendable, CaseIterable {
    /// Play the playlist once, then stop on the last frame.
    case none
    /// Repeat the current item forever.
    case item
    /// Repeat the whole playlist forever.
    case playlist
}
