/// The vocabulary of playback state, in AVFoundation's terms: an item's status, the player's
/// time control status and why it waits, the inputs the state machine takes and the public
/// events it emits. The machine itself is `PlaybackState`.

/// Whether the current item can be played, as `AVPlayerItem.Status`.
public enum PlayerItemStatus: Sendable, Hashable, CustomStringConvertible {
    /// Opening and probing has not finished (or there is no item).
    case unknown
    /// Opened, streams found, duration known if it has one.
    case readyToPlay
    /// Cannot be played; `reason` names the item and what went wrong.
    case failed(reason: String)

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .readyToPlay: "readyToPlay"
        case .failed(let reason): "failed(\(reason))"
        }
    }
}

/// One entry of the play queue as the state machine sees it: which item, for events and logs.
public struct PlayerItemReference: Sendable, Hashable, CustomStringConvertible {
    /// Assigned by the engine, unique for every time an item is queued, so that looping the
    /// same file twice gives two distinct references.
    public let serial: UInt64
    /// What a log line should call the item: its title (kiosk.conf's, else the file name).
    public let name: String
    /// Its path or URL as the playlist has it (credentials not masked: mask before logging).
    public let source: String
    /// Played once by an insert (a schedule's, `play_item_once`, a trigger), not an entry of
    /// the loop's own list; set by the engine when the item begins.
    public var isInsert: Bool
    /// kiosk.conf's playlist the entry is written in (`ItemConfig.playlist`); nil for entries
    /// of none (an override's, a `load`, a stick's).
    public var playlist: String?
    /// Why it plays: in the loop, or as an insert, a trigger's or an override's (proof of play);
    /// set by the engine when the item begins.
    public var playedAs: PlayedAs = .loop

    public init(serial: UInt64, name: String, source: String = "", isInsert: Bool = false) {
        self.serial = serial
        self.name = name
        self.source = source
        self.isInsert = isInsert
    }

    public var description: String { "#\(serial) \(name)" }
}

/// What `PlaybackState` is fed: engine events and user requests (keys, touch, IPC).
public enum PlaybackInput: Sendable, Equatable {
    // Engine events.
    /// `item` became current and is being opened (replaceCurrentItem, or advancing to an
    /// item that was not prepared ahead). Its status is unknown until `itemReady`/`itemFailed`.
    case itemLoading(PlayerItemReference)
    /// The current item opened; `duration` is nil for a stream with no known end (live).
    case itemReady(duration: MediaTime?)
    /// `item` cannot be played. If it is the current item its status becomes failed; if it is
    /// a queued item that failed while being prepared ahead, only the event is passed on.
    case itemFailed(PlayerItemReference, reason: String)
    /// A seam: the current item ended and `item`, prepared ahead (opened, first frame
    /// decoded), took its place without a gap. No transient waiting state is reported.
    case advanced(to: PlayerItemReference, duration: MediaTime?)
    /// The current item played to its end and nothing prepared follows it (yet).
    case endReached
    /// The queue is empty: there is no current item any more.
    case queueEmpty
    /// The decoders ran dry while the current item was playing.
    case bufferEmpty
    /// A decoded frame at the current position is ready (first frame, after a seek, after a
    /// stall).
    case bufferReady

    // User requests.
    /// A request from keys, touch, the control socket or the engine's own settings;
    /// `position` is the clock's position as the engine carries it out, which a `skip`
    /// counts from (the state machine owns no time). Playlist requests change nothing here:
    /// the engine moves its cursor and reports `itemLoading` or `advanced`.
    case request(PlayerRequest, position: MediaTime = .zero)
}

/// What `PlaybackState` asks the engine to announce (IPC, logs, OSD) or to act on (`seek`).
public enum PlaybackEvent: Sendable, Hashable {
    case statusChanged(PlayerItemStatus)
    case timeControlStatusChanged(TimeControlStatus, reasonForWaiting: WaitingReason?)
    case rateChanged(Rational)
    case defaultRateChanged(Rational)
    case volumeChanged(Int)
    case mutedChanged(Bool)
    /// The first frame of `item` is being played (once per item reference).
    case itemStarted(PlayerItemReference)
    /// `item` played to its end (AVPlayerItemDidPlayToEndTime).
    case itemEnded(PlayerItemReference)
    case itemFailed(PlayerItemReference, reason: String)
    /// The engine must flush its pipelines and continue from `time` (already clamped).
    case seek(to: MediaTime)
}

/// A command `PlaybackState` refused, with a message fit for the log or an IPC reply.
public enum PlaybackError: Error, Sendable, Hashable, CustomStringConvertible {
    case rateOutOfRange(Rational)
    case defaultRateOutOfRange(Rational)
    case volumeOutOfRange(Int)
    case notSeekable(PlayerItemStatus)
    case noItemToSeek
    case invalidRateText(String)

    public var description: String {
        switch self {
        case .notSeekable, .noItemToSeek: return "cannot seek: \(reason)"
        default: return reason
        }
    }

    /// Why, without the verb: the control socket's reply puts the command's word before it.
    public var reason: String {
        let range = "\(PlaybackRate.minimum.doubleValue)...\(PlaybackRate.maximum.doubleValue)"
        switch self {
        case .rateOutOfRange(let rate):
            return "rate \(rate.doubleValue) is not allowed: use 0 to pause or \(range) to play"
        case .defaultRateOutOfRange(let rate):
            return "default rate \(rate.doubleValue) is not allowed: use \(range)"
        case .volumeOutOfRange(let volume):
            return "volume \(volume) is not allowed: use 0...100 (percent)"
        case .notSeekable(let status):
            return "the current item is not ready to play (status \(status))"
        case .noItemToSeek:
            return "there is no current item"
        case .invalidRateText(let text):
            return "rate '\(text)' is not a number: use 0 to pause or \(range) to play"
        }
    }
}

/// The rates the player accepts, exact fractions so the clock stays exact.
public enum PlaybackRate {
    public static let minimum = Rational(1, 4)
    public static let maximum = Rational(4, 1)
    public static let normal = Rational.one

    /// Whether `rate` may be played at (0 is "paused", not a playing rate).
    public static func isPlayable(_ rate: Rational) -> Bool {
        rate.denominator > 0 && !isLess(rate, minimum) && !isLess(maximum, rate)
    }

    /// Parses a decimal rate such as "1.25" or "0.5" into an exact fraction (to 1/1000).
    /// Does not check the range: `setRate` does, so that 0 can mean pause.
    public static func parse(_ text: String) throws(PlaybackError) -> Rational {
        let trimmed = text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        guard let value = Double(String(trimmed)), value.isFinite else { throw .invalidRateText(text) }
        guard Swift.abs((value * 1000).rounded()) < 1e12 else { throw .invalidRateText(text) }
        return fraction(fromDecimal: value)
    }

    /// A decimal rate (kiosk.conf's `rate`, `--rate`, the control socket's number) as an exact
    /// fraction, to 1/1000. Total, because the number may come from a socket: NaN is 0 and a
    /// value beyond +-1e9 is held there (both far outside `isPlayable`), where converting it to
    /// Int64 trapped (`rate 1e300` crashed the player).
    public static func fraction(fromDecimal value: Double) -> Rational {
        let bounded = value.isNaN ? 0 : Swift.min(Swift.max(value, -1e9), 1e9)
        return Rational(Int64((bounded * 1000).rounded()), 1000)
    }

    /// `a < b` for fractions with positive denominators, without rounding.
    static func isLess(_ a: Rational, _ b: Rational) -> Bool {
        Int128(a.numerator) * Int128(b.denominator) < Int128(b.numerator) * Int128(a.denominator)
    }
}
