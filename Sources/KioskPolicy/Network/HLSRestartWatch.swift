/// Tells a live HLS stream's packager restarted from zero from the same stream rejoined, by the
/// media sequence of the playlist (`HLSPlaylist`) looked at beside FFmpeg: timestamps cannot
/// (a restarted packager's first packets lie inside `LiveSource.hlsRejoinWindowSeconds` of where
/// a short-lived stream stopped, so they were dropped as repeats until the new stream passed
/// the old position: 11-20 s in the live benchmark), and FFmpeg's demuxer, given a playlist
/// whose sequence went back, waits for it to pass the old number.
///
/// Looks come while the stream plays (once a target duration) and before each reopen of an
/// outage. The same stream's playlist advances with time (one segment a target duration, a
/// segment behind at most) and keeps the names of the segments it still lists; a restarted one
/// starts again from (about) nothing.
public struct HLSRestartWatch: Sendable {
    /// What a reconnect attempt should do with the playlist as it is now.
    public enum Decision: Sendable, Equatable {
        /// Reopen: its packets continue the timeline (repeats dropped) or start a new one (all kept).
        case rejoin(newTimeline: Bool)
        /// The playlist is the one the last rejoin found, and nothing came of it: a dead
        /// packager's last playlist, still served. Reopening would only replay it.
        case wait
    }

    /// The newest look of the timeline being played, and when (host seconds). (Not when it was
    /// first seen so: a dead packager's playlist stands still while FFmpeg plays its last three
    /// segments, and counted from its last change it would pass for a restart and be replayed.)
    private var seen: (playlist: HLSPlaylist, at: Double)?
    /// Whether a look since the last rejoin (or packets) found no playlist there (HTTP 404):
    /// one that comes back not moved on is a packager restarted on an emptied folder, even one
    /// whose playlist reads as the last one did (a stream a second long, the same names).
    private var vanishedSince = false
    /// The playlist the rejoins after a 404 were made on, and how many in a row, until a look
    /// while playing finds another. A packager restarted again and again with the same names
    /// (its streams a second long, no look saw one grow) reads so too, now and then: only the
    /// third in a row is doubted, as a dead packager's behind a server that fails to find its
    /// playlist now and then (each one replayed its last segments as a restart).
    private var rejoinedAfterVanishing: (playlist: HLSPlaylist, times: Int)?
    /// Rejoins after a 404 on the same playlist, with no change seen, before the next is doubted.
    public static let vanishingRejoinsBeforeDoubt = 2
    /// The playlist the last rejoin was made on, until packets flow again.
    private var rejoinedOn: HLSPlaylist?
    /// Since when the looks found the rejoined playlist unchanged (host seconds).
    private var waitingSince: Double?

    public init() {}

    /// A look while packets flow: the timeline's progress.
    /// (Packets flowed since the last rejoin: a later playlist just like that one's is a restart
    /// that named its segments as before, not a dead packager's.)
    public mutating func played(_ playlist: HLSPlaylist, at seconds: Double) {
        if let replayed = rejoinedAfterVanishing, !Self.isSame(replayed.playlist, playlist) { rejoinedAfterVanishing = nil }
        seen = (playlist, seconds)
        rejoinedOn = nil
        waitingSince = nil
        vanishedSince = false
    }

    /// A look before a reopen found no playlist there (the server said so, not a failure to reach it).
    public mutating func vanished() {
        vanishedSince = true
    }

    /// New packets came after a rejoin: a later playlist just like that rejoin's is not a dead
    /// packager's (a restart that named its segments as before, looked at before any look
    /// while playing could say the stream moved on).
    public mutating func packetsCame() {
        rejoinedOn = nil
        waitingSince = nil
        vanishedSince = false
    }

    /// A look before a reopen, at host time `seconds`. Decides only: `rejoined` records a
    /// reopen that succeeded (one that failed is decided again at the next look).
    public func reconnecting(_ playlist: HLSPlaylist, at seconds: Double) -> Decision {
        if vanishedSince, isWrittenAnew(playlist, at: seconds) { return .rejoin(newTimeline: true) }
        if let rejoinedOn, Self.isSame(rejoinedOn, playlist) {
            // Not for ever: a cached or stale copy, or a variant other than the one FFmpeg
            // plays, must not keep a stream that came back from being reopened.
            let bound = Swift.max(10, 3 * Double(playlist.targetDuration))
            if let waitingSince, seconds - waitingSince >= bound { return .rejoin(newTimeline: false) }
            return .wait
        }
        guard let seen else { return .rejoin(newTimeline: false) }
        return .rejoin(newTimeline: Self.isRestart(playlist, after: seen.playlist, elapsed: seconds - seen.at))
    }

    /// The look `reconnecting` answered `.wait` to, at `seconds`.
    public mutating func waited(at seconds: Double) {
        if waitingSince == nil { waitingSince = seconds }
    }

    /// A reopen made on `playlist` at `seconds` succeeded.
    public mutating func rejoined(_ playlist: HLSPlaylist, at seconds: Double) {
        if vanishedSince {
            let before = rejoinedAfterVanishing.flatMap { Self.isSame($0.playlist, playlist) ? $0.times : nil } ?? 0
            rejoinedAfterVanishing = (playlist, before + 1)
        }
        rejoinedOn = playlist
        seen = (playlist, seconds)
        waitingSince = nil
        vanishedSince = false
    }

    /// After a 404: whether `playlist`, back not moved on, was written anew (a packager restarted
    /// on an emptied folder, even with the names it had). A dead packager's playlist that a
    /// server fails to find now and then (a cache node without it) is taken for one and replayed
    /// twice: the price of telling a restart with the same names at its first look.
    private func isWrittenAnew(_ playlist: HLSPlaylist, at seconds: Double) -> Bool {
        guard let seen, playlist.lastSequence <= seen.playlist.lastSequence else { return false }
        // The same stream, served again, has moved on unless looked at within a target duration.
        if Self.isSame(playlist, seen.playlist) && seconds - seen.at < Double(playlist.targetDuration) { return false }
        // A rejoin on it brought nothing: a dead playlist, waited on.
        if let rejoinedOn, Self.isSame(rejoinedOn, playlist) { return false }
        if let replayed = rejoinedAfterVanishing, replayed.times >= Self.vanishingRejoinsBeforeDoubt,
           Self.isSame(replayed.playlist, playlist) { return false }
        return true
    }

    private static func isSame(_ a: HLSPlaylist, _ b: HLSPlaylist) -> Bool {
        a.mediaSequence == b.mediaSequence && a.segments == b.segments
    }

    /// Whether `playlist`, looked at `elapsed` seconds after `old`, is a restart.
    /// - Moved on (its last segment past the old one's): a restart only where the two list the
    ///   same sequence number under different names (a stalled packager that resumed keeps them).
    /// - Not moved on: the same stream adds one segment a target duration; with its playlist
    ///   written up to a segment late (and a cache a segment behind) it is at least
    ///   `floor(elapsed / target) - 1` ahead. A restart is counted at half that pace, less two (so
    ///   a continuing stream is never taken as one): a sequence that went back two or more, or a
    ///   playlist standing still for seconds.
    static func isRestart(_ playlist: HLSPlaylist, after old: HLSPlaylist, elapsed: Double) -> Bool {
        let advance = playlist.lastSequence - old.lastSequence
        if advance > 0 {
            let first = Swift.max(playlist.mediaSequence, old.mediaSequence), last = Swift.min(playlist.lastSequence, old.lastSequence)
            guard first <= last else { return false }
            return (first...last).contains { playlist.segments[$0 - playlist.mediaSequence] != old.segments[$0 - old.mediaSequence] }
        }
        let pace = Swift.max(0, elapsed) / Double(Swift.max(1, old.targetDuration))
        return Double(advance) < pace / 2 - 2
    }
}
