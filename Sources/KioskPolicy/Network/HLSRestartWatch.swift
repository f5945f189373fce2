/// Tells a live HLS stream's packager restarted from zero from the same stream rejoined, by the
/// media sequence of the playlist (`HLSPlaylist`) looked at beside FFmpeg: timestamps cannot
/// (a restarted packager's first packets lie inside `LiveSource.hlsRejoinWindowSeconds` of where
/// a short-lived stream stopped, so they were dropped as repeats until the new stream passed
/// the old position: 11-20 s in the live benchmark), and FFmpeg's demuxer, given a playlist
/// whose sequence went back, waits for it to pass the old number.
///
/// Looks come while the stream plays (once a target duration) and before each reopen of an
/// outage. The same stream's playlist advances with time (one segment a target duration, a
/// segment behind at most); a restarted one starts again from (about) nothing.
public struct HLSRestartWatch: Sendable {
    /// What a reconnect attempt should do with the playlist as it is now.
    public enum Decision: Sendable, Equatable {
        /// Reopen: its packets continue the timeline (repeats dropped) or start a new one (all kept).
        case rejoin(newTimeline: Bool)
        /// The playlist is the one the last rejoin found, and nothing came of it: a dead
        /// packager's last playlist, still served. Reopening would only replay it.
        case wait
    }

    /// The newest look of the timeline being played: its last segment and when (host seconds).
    private var seen: (lastSequence: Int, at: Double, targetDuration: Int)?
    /// The playlist the last rejoin was made on, until packets flow again.
    private var rejoinedOn: HLSPlaylist?

    public init() {}

    /// A look while packets flow: the timeline's progress.
    /// (Packets flowed since the last rejoin: a later playlist just like that one's is a restart
    /// that named its segments as before, not a dead packager's.)
    public mutating func played(_ playlist: HLSPlaylist, at seconds: Double) {
        seen = (playlist.lastSequence, seconds, playlist.targetDuration)
        rejoinedOn = nil
    }

    /// A look before a reopen, at host time `seconds`.
    public mutating func reconnecting(_ playlist: HLSPlaylist, at seconds: Double) -> Decision {
        if let rejoinedOn, rejoinedOn.mediaSequence == playlist.mediaSequence, rejoinedOn.segments == playlist.segments {
            return .wait
        }
        defer {
            rejoinedOn = playlist
            seen = (playlist.lastSequence, seconds, playlist.targetDuration)
        }
        guard let seen else { return .rejoin(newTimeline: false) }
        return .rejoin(newTimeline: Self.isRestart(advance: playlist.lastSequence - seen.lastSequence,
                                                    elapsed: seconds - seen.at, targetDuration: seen.targetDuration))
    }

    /// Whether a playlist whose last segment is `advance` segments past the one seen `elapsed`
    /// seconds ago is a restart. The same stream adds one segment a target duration; with its
    /// playlist written up to a segment late (and a cache a segment behind) it is at least
    /// `floor(elapsed / target) - 1` ahead. A restart is counted at half that pace, less two
    /// (so a continuing stream is never taken as one): a sequence that went back two or more,
    /// or a playlist that grew at under half its pace since the last look.
    static func isRestart(advance: Int, elapsed: Double, targetDuration: Int) -> Bool {
        let pace = Swift.max(0, elapsed) / Double(Swift.max(1, targetDuration))
        return Double(advance) < pace / 2 - 2
    }
}
