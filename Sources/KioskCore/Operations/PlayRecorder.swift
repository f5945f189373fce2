import Foundation

/// What the proof-of-play recorder is told, in the order it happened: the player's events
/// (mapped from `PlayerEvent` by the caller, which KioskCore cannot see) and the requests
/// sources sent, which say why an item that did not end was left.
public enum PlayObservation: Sendable, Equatable {
    /// The first frame of `item`, the entry at `index` with `source` (its path or URL), is
    /// shown (`PlaybackEvent.itemStarted`).
    case started(PlayerItemReference, index: Int, source: String)
    /// `item` played to its end (`PlaybackEvent.itemEnded`).
    case ended(PlayerItemReference)
    /// `item` cannot be played (`PlaybackEvent.itemFailed`): the current one, or one prepared ahead.
    case failed(PlayerItemReference, reason: String)
    /// The engine skipped the entry at `index` (`PlayerEvent.itemSkipped`, after `failed`);
    /// `source` as far as it is known.
    case skipped(index: Int, source: String, reason: String)
    /// A source sent this request; the next item change that is not an end is blamed on it.
    case requested(PlayerRequest)
    /// `PlayerEvent.displayPower`.
    case displayPower(on: Bool)
    /// kiosk is stopping: what plays is cut short.
    case stopping
}

/// A moment as the recorder needs it: the wall clock for the file, the monotonic clock for
/// durations.
public struct PlayInstant: Sendable, Equatable {
    public var wall: Date
    public var monotonic: Double

    public init(wall: Date, monotonic: Double) {
        self.wall = wall
        self.monotonic = monotonic
    }
}

/// Turns a sequence of observations into play records. Pure: the writer feeds it on its own
/// queue and appends what comes out.
public struct PlayRecorder: Sendable {
    private struct OpenPlay: Sendable {
        var reference: PlayerItemReference
        var index: Int
        var source: String
        var start: PlayInstant
    }

    private var playing: OpenPlay?
    /// The latest playlist request not yet followed by an item change.
    private var pendingCause: InterruptionCause?
    /// That request ended an override whose duration ran out: its item played its course.
    private var pendingCompletes = false
    /// The last `failed` seen, so the `skipped` that follows it knows the item's title and
    /// whether it was the one playing (then it is already recorded as failed).
    private var lastFailure: (reference: PlayerItemReference, wasPlaying: Bool)?

    public init() {}

    /// Feeds one observation made at `now`; returns the plays it completed.
    public mutating func observe(_ observation: PlayObservation, at now: PlayInstant) -> [PlayRecord] {
        switch observation {
        case .started(let reference, let index, let source):
            var records: [PlayRecord] = []
            if let open = playing, open.reference != reference {
                // An override that ran its course was written "interrupted, override": never completed.
                let outcome: PlayOutcome = pendingCompletes ? .completed : .interrupted(pendingCause ?? .otherRequest)
                records.append(close(open, at: now, outcome: outcome))
            }
            if playing?.reference != reference {
                playing = OpenPlay(reference: reference, index: index, source: source, start: now)
            }
            pendingCause = nil
            pendingCompletes = false
            lastFailure = nil
            return records
        case .ended(let reference):
            guard let open = playing, open.reference == reference else { return [] }
            playing = nil
            pendingCause = nil   // a request that arrived as the item ended changed nothing of it
            pendingCompletes = false
            return [close(open, at: now, outcome: .completed)]
        case .failed(let reference, let reason):
            guard let open = playing, open.reference == reference else {
                lastFailure = (reference, false)
                return []
            }
            playing = nil
            lastFailure = (reference, true)
            return [close(open, at: now, outcome: .failed(reason: reason))]
        case .skipped(let index, let source, let reason):
            defer { lastFailure = nil }
            if let failure = lastFailure, failure.wasPlaying { return [] }
            let reference = lastFailure?.reference
            return [PlayRecord(item: index, source: NetworkURL.masked(source), title: reference.map { NetworkURL.masked($0.name) },
                               start: now.wall, end: now.wall, secondsShown: 0, outcome: .skipped(reason: reason),
                               playlist: reference?.playlist, playedAs: reference?.playedAs ?? .loop)]
        case .requested(let request):
            if let cause = Self.cause(of: request) {
                pendingCause = cause
                if case .endOverride(let ranItsCourse) = request { pendingCompletes = ranItsCourse } else { pendingCompletes = false }
            }
            return []
        case .displayPower(let on):
            return on ? [] : closePlaying(at: now, cause: .displayOff)
        case .stopping:
            return closePlaying(at: now, cause: .stopping)
        }
    }

    private mutating func closePlaying(at now: PlayInstant, cause: InterruptionCause) -> [PlayRecord] {
        pendingCause = nil   // what was asked before the screen went dark or kiosk stopped is moot
        pendingCompletes = false
        guard let open = playing else { return [] }
        playing = nil
        return [close(open, at: now, outcome: .interrupted(cause))]
    }

    private func close(_ open: OpenPlay, at now: PlayInstant, outcome: PlayOutcome) -> PlayRecord {
        // The engine names an item by its title (kiosk.conf's, or the file name).
        PlayRecord(item: open.index, source: NetworkURL.masked(open.source), title: NetworkURL.masked(open.reference.name),
                   start: open.start.wall, end: now.wall, secondsShown: now.monotonic - open.start.monotonic,
                   outcome: outcome, playlist: open.reference.playlist, playedAs: open.reference.playedAs)
    }

    /// The cause a request gives the item change it brings; nil for requests that change no item.
    static func cause(of request: PlayerRequest) -> InterruptionCause? {
        switch request {
        case .nextItem: .next
        case .previousItem: .previous
        case .goto: .goto
        case .load: .load
        case .switchPlaylist(_, let when): when == .now ? .scheduleSwitch : nil
        // A trigger always cuts in at once (even when it waits behind an insert, which then
        // ends by itself and is recorded completed).
        case .playOnce(_, _, _?): .trigger
        case .playOnce(_, let when, nil): when == .now ? .insert : nil
        case .showOverride, .endOverride: .override
        case .play, .pause, .togglePlayPause, .setRate, .setDefaultRate, .setSpeed, .setVolume, .adjustVolume,
             .setMuted, .toggleMute, .seek, .skip, .setDisplayPower, .layer, .soundCue:
            nil
        }
    }
}
