import Foundation

/// kiosk.conf `playback.transition`, or an item's own `transition`: how the picture (and the
/// sound) change where one item plays to its end and the next follows. `cut` is the default:
/// the next item's first frame replaces the last one at the seam (no black frame, no stall).
/// An item's own transition is how it comes in.
public struct Transition: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// The next picture at once.
        case cut
        /// Via black: the outgoing item fades out over its last half of `duration`, the
        /// incoming one in over its first half; the sound follows.
        case fade
        /// The incoming item's pictures over the outgoing item's last one, from none to
        /// whole over `duration`; the incoming sound rises with it.
        case crossfade
    }

    public var kind: Kind
    /// The whole transition, both halves of a fade.
    public var duration: MediaTime

    public static let defaultDuration = MediaTime(value: 4, timescale: 5)
    /// Bounds for `duration`: shorter is a cut with extra work, longer is no longer a seam.
    public static let shortest = MediaTime(value: 1, timescale: 10)
    public static let longest = MediaTime(value: 10, timescale: 1)
    public static let cut = Transition(kind: .cut)

    public init(kind: Kind, duration: MediaTime = Transition.defaultDuration) {
        self.kind = kind
        self.duration = duration
    }

    public var description: String {
        kind == .cut ? "cut" : "\(kind.rawValue) \(String(format: "%g", duration.seconds)) s"
    }
}

/// The transitions touching the item on screen, by its position (media time from its trimmed
/// start): how it came in, if a transition was carried out, and the fade it goes out with, if
/// one was committed. Pure: the presenter asks it for each flip's look.
public struct TransitionSchedule: Sendable, Hashable {
    /// How the current item came in (fade or crossfade), when that transition was carried out.
    public var entry: Transition?
    /// The fade out of the current item, when one was committed.
    public var exit: ExitFade?

    /// A fade's whole duration (the item uses its last half) and the item's end (its length).
    public struct ExitFade: Sendable, Hashable {
        public var duration: MediaTime
        public var end: MediaTime
        public init(duration: MediaTime, end: MediaTime) { self.duration = duration; self.end = end }
    }

    public init(entry: Transition? = nil) {
        self.entry = entry?.kind == .cut ? nil : entry
    }

    /// What a flip at `position` shows; `entryPosition`, when given, is where the entry stands
    /// (it may be ahead of a clock that went back after a stall; the exit follows `position`).
    public func look(at position: MediaTime, entryAt entryPosition: MediaTime? = nil) -> TransitionLook {
        var incoming = 1.0, level = 1.0
        if let entry {
            let progress = (entryPosition ?? position).seconds / entry.duration.seconds
            switch entry.kind {
            case .crossfade: incoming = progress
            case .fade: level = progress * 2
            case .cut: break
            }
        }
        if let exit {
            level = Swift.min(level, (exit.end - position).seconds / (exit.duration.seconds / 2))
        }
        return TransitionLook(incomingFraction: incoming, levelFraction: level)
    }

    /// Whether a flip at `position` shows more than the plain picture, or the entry has just
    /// ended (the plain picture is not up yet): the presenter refreshes at every flip then,
    /// also between a video's frames and on a still.
    public func isMoving(at position: MediaTime, entryAt entryPosition: MediaTime? = nil) -> Bool {
        if let entry {
            let length = entry.kind == .fade ? entry.duration * Rational(1, 2) : entry.duration
            if (entryPosition ?? position) < length + MediaTime(value: 1, timescale: 10) { return true }
        }
        if let exit, position >= exit.end - exit.duration * Rational(1, 2) - MediaTime(value: 1, timescale: 10) { return true }
        return false
    }

    /// Whether the entry has nothing more to show at `position`: its look there is the plain
    /// picture (a look rounds to it just before the entry's length).
    public func entryIsOver(at position: MediaTime) -> Bool {
        guard let entry else { return true }
        return TransitionSchedule(entry: entry).look(at: position).isPlain
    }

    /// Whether a transition into the next item may still be committed while the outgoing item is
    /// at `position` of `end`: it needs the outgoing item's end, and its fade-out (a fade's
    /// first half) must start after `lead` from now (the sound is queued ahead of the picture,
    /// so a fade decided later would cut into sound already on its way). A crossfade starts at
    /// the seam: it needs only the end's lead.
    public static func mayCommit(_ transition: Transition, position: MediaTime, end: MediaTime?, lead: MediaTime) -> Bool {
        guard transition.kind != .cut, let end else { return false }
        let fadeOut = transition.kind == .fade ? transition.duration * Rational(1, 2) : .zero
        return end - fadeOut - position >= lead
    }

    /// How long before the outgoing item's end (`end - position`) the next item should be
    /// opened for `transition` into it: `base` for a cut (its first frame is due at the seam);
    /// a fade or crossfade must be decided `lead` before its fade-out starts (`mayCommit`), so it
    /// opens that much earlier and gets the same `base` to decode its first frame as a cut. With
    /// `base` alone a fade of 4 s could never be committed, and a starved box cut its crossfade.
    public static func openingLead(for transition: Transition, base: MediaTime, lead: MediaTime) -> MediaTime {
        guard transition.kind != .cut else { return base }
        let fadeOut = transition.kind == .fade ? transition.duration * Rational(1, 2) : .zero
        return base + fadeOut + lead
    }
}
