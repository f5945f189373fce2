import KioskCore

/// A live HLS item's looks at its playlist beside FFmpeg (`HLSRestartWatch`), made on the demux
/// thread by `StreamReader`: once a target duration while packets flow (FFmpeg reloads it as
/// often), and before each reopen of an outage.
final class HLSLiveLooks {
    private let url: String
    private var watch = HLSRestartWatch()
    private var nextLookAt = 0.0
    /// A look gives up after this long: it must not hold the stream's reads back.
    static let lookDeadlineSeconds = 1.0
    /// The playlist of the last look, for the log.
    private(set) var lastPlaylist: HLSPlaylist?
    /// Whether this outage's "nothing new" was said.
    private var waitSaid = false

    init(url: String) { self.url = url }

    private func look(_ interrupt: InterruptFlag) -> HLSPlaylist? {
        let playlist = HLSPlaylistFetch.mediaPlaylist(url, interrupt: interrupt, deadlineSeconds: Self.lookDeadlineSeconds)
        if let playlist { lastPlaylist = playlist }
        return playlist
    }

    /// While packets flow: a look when one is due.
    func lookIfDue(_ interrupt: InterruptFlag) {
        let now = MonotonicClock.hostTime().seconds
        guard now >= nextLookAt else { return }
        let playlist = look(interrupt)
        nextLookAt = now + Double(playlist?.targetDuration ?? lastPlaylist?.targetDuration ?? 1)
        if let playlist {
            watch.played(playlist, at: now)
            waitSaid = false
        }
    }

    /// Before a reopen: what to do, and whether the wait is new to this outage (said once);
    /// nil when the playlist could not be read (the reopen is tried as without looks).
    func decideReconnect(_ interrupt: InterruptFlag) -> (decision: HLSRestartWatch.Decision, firstWait: Bool)? {
        guard let playlist = look(interrupt) else { return nil }
        let decision = watch.reconnecting(playlist, at: MonotonicClock.hostTime().seconds)
        defer { if decision == .wait { waitSaid = true } }
        return (decision, decision == .wait && !waitSaid)
    }
}
