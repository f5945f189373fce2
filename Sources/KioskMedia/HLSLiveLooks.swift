import KioskCore

/// A live HLS item's looks at its playlist beside FFmpeg (`HLSRestartWatch`), made on the demux
/// thread by `StreamReader`: once a target duration while packets flow (FFmpeg reloads it as
/// often), and before each reopen of an outage. A look holds the reads back for at most half a
/// second; one that failed waits five target durations before the next while packets flow.
final class HLSLiveLooks {
    private let url: String
    private var watch = HLSRestartWatch()
    private var nextLookAt = 0.0
    /// A look gives up after this long: it must not hold the stream's reads back.
    static let lookDeadlineSeconds = 0.5
    /// The playlist of the last look, for the log and for `rejoined`.
    private(set) var lastPlaylist: HLSPlaylist?
    /// Whether this outage's "nothing new" was said.
    private var waitSaid = false
    /// The playlist of the look a reopen is about to be made on (none when that look failed).
    private var lookBeforeReopen: HLSPlaylist?

    /// The `BANDWIDTH` of the master's variant FFmpeg plays (its `variant_bitrate`), if known;
    /// set again after each reopen.
    var variantBandwidth: Int?

    init(url: String) { self.url = url }

    /// What the last look found, for the debug log.
    private(set) var lastLookSaid = ""

    private func look(_ interrupt: InterruptFlag) -> HLSPlaylistFetch.Answer {
        let answer = HLSPlaylistFetch.mediaPlaylist(url, variantBandwidth: variantBandwidth, interrupt: interrupt,
                                                    deadlineSeconds: Self.lookDeadlineSeconds)
        switch answer {
        case .playlist(let playlist):
            lastPlaylist = playlist
            lastLookSaid = "media sequence \(playlist.mediaSequence), \(playlist.segments.count) segment(s)"
        case .notThere(let variant): lastLookSaid = variant ? "its first variant not there" : "not there"
        case .failed: lastLookSaid = "not read"
        }
        return answer
    }

    /// While packets flow: a look when one is due.
    func lookIfDue(_ interrupt: InterruptFlag) {
        let now = MonotonicClock.hostTime().seconds
        guard now >= nextLookAt else { return }
        let target = Double(lastPlaylist?.targetDuration ?? 1)
        guard case .playlist(let playlist) = look(interrupt) else {
            nextLookAt = now + 5 * target
            return
        }
        nextLookAt = now + Double(playlist.targetDuration)
        watch.played(playlist, at: now)
        waitSaid = false
    }

    /// What a look before a reopen says to do.
    enum BeforeReopen {
        /// The watch's decision, and whether a wait is new to this outage (said once).
        case decided(HLSRestartWatch.Decision, firstWait: Bool)
        /// The server says the playlist is not there (remembered: `HLSRestartWatch.vanished`):
        /// FFmpeg's open would fail the same way, and one that succeeded a moment later (the
        /// packager's first playlist just written) would be decided without this look.
        case notThere
        /// The playlist could not be read: the reopen is tried as without looks.
        case unread
    }

    func decideReconnect(_ interrupt: InterruptFlag) -> BeforeReopen {
        lookBeforeReopen = nil
        let playlist: HLSPlaylist
        switch look(interrupt) {
        case .playlist(let read): playlist = read
        case .notThere(let variant):
            watch.vanished()
            // A master's variant gone says nothing certain: FFmpeg's open marks a variant whose
            // playlist fails as broken and plays another.
            return variant ? .unread : .notThere
        case .failed: return .unread
        }
        let now = MonotonicClock.hostTime().seconds
        let decision = watch.reconnecting(playlist, at: now)
        guard decision == .wait else {
            lookBeforeReopen = playlist
            return .decided(decision, firstWait: false)
        }
        watch.waited(at: now)
        defer { waitSaid = true }
        return .decided(decision, firstWait: !waitSaid)
    }

    /// The first new packet after an outage came.
    func back() { watch.packetsCame() }

    /// The reopen made after the last look succeeded.
    func rejoined() {
        if let lookBeforeReopen { watch.rejoined(lookBeforeReopen, at: MonotonicClock.hostTime().seconds) }
        lookBeforeReopen = nil
    }
}
