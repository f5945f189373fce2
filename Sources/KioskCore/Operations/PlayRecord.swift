import Foundation

/// One play of one item, as the proof-of-play file records it: a JSON object on one line.
public struct PlayRecord: Sendable, Equatable {
    /// The entry's index in the playlist that played it, counted from 0.
    public var item: Int
    /// Its path or URL, credentials masked (`NetworkURL.masked`).
    public var source: String
    /// kiosk.conf's `title`, or the file name; nil when unknown.
    public var title: String?
    /// Wall-clock times of the first frame and of the end.
    public var start: Date
    public var end: Date
    /// Seconds between them on the monotonic clock (a wall clock set by NTP meanwhile does
    /// not stretch or shrink a play); paused time counts, since the picture was shown.
    public var secondsShown: Double
    public var outcome: PlayOutcome
    /// kiosk.conf's playlist the entry is written in (`default`, a name of `playlists:`); nil
    /// when none (an override's, a `load`, a stick's).
    public var playlist: String?
    /// In the loop, or as an insert, a trigger's or an override's (with its name): an alert's
    /// card is told from the same file in the loop.
    public var playedAs: PlayedAs

    public init(item: Int, source: String, title: String?, start: Date, end: Date, secondsShown: Double,
                outcome: PlayOutcome, playlist: String? = nil, playedAs: PlayedAs = .loop) {
        self.item = item
        self.source = source
        self.title = title
        self.start = start
        self.end = end
        self.secondsShown = secondsShown
        self.outcome = outcome
        self.playlist = playlist
        self.playedAs = playedAs
    }
}

/// How a play ended.
public enum PlayOutcome: Sendable, Equatable {
    /// Played to its end.
    case completed
    /// Found unplayable before its first frame (prepared ahead, or opened and failed).
    case skipped(reason: String)
    /// Began, then failed (a decode error, a stall, a dropped stream).
    case failed(reason: String)
    /// Ended early on purpose.
    case interrupted(InterruptionCause)

    /// The `outcome` field's word.
    public var word: String {
        switch self {
        case .completed: "completed"
        case .skipped: "skipped"
        case .failed: "failed"
        case .interrupted: "interrupted"
        }
    }

    /// The `reason` field; nil for a completed play.
    public var reason: String? {
        switch self {
        case .completed: nil
        case .skipped(let reason), .failed(let reason): reason
        case .interrupted(let cause): cause.rawValue
        }
    }
}

/// Why a play was cut short.
public enum InterruptionCause: String, Sendable, CaseIterable {
    /// The schedule switched playlists at once (`switch: now`).
    case scheduleSwitch = "schedule switch"
    /// An insert cut in (a timed insert, `play_item_once`).
    case insert
    /// A trigger of kiosk.conf cut in (a key, a touch zone, the control socket's `trigger`).
    case trigger
    /// An override took the screen (`override`, an alert), or one ended and gave it back.
    case override
    /// next, previous or goto from the control socket.
    case next, previous, goto
    /// A new playlist was loaded (the control socket's `load`).
    case load
    /// Another item was asked for by a source kiosk cannot tell apart (keys, touch, a reload
    /// of the playlist).
    case otherRequest = "request"
    /// The display was switched off.
    case displayOff = "display off"
    /// kiosk stopped (SIGTERM, a restart, shutdown).
    case stopping = "kiosk stopping"
}

extension PlayRecord {
    /// The record as one JSON line, without the newline. Keys in a fixed order, so the file
    /// reads the same every time; times in ISO 8601 with the UTC offset of `timeZone`.
    public func jsonLine(timeZone: TimeZone = .current) -> String {
        var fields: [(String, String)] = [
            ("item", "\(item)"),
            ("path", JSONText.quoted(source)),
        ]
        if let title { fields.append(("title", JSONText.quoted(title))) }
        if let playlist { fields.append(("playlist", JSONText.quoted(playlist))) }
        fields.append(("played_as", JSONText.quoted(playedAs.word)))
        if let name = playedAs.name { fields.append(("by", JSONText.quoted(name))) }
        fields.append(("start", JSONText.quoted(ISOTime.text(start, timeZone: timeZone))))
        fields.append(("end", JSONText.quoted(ISOTime.text(end, timeZone: timeZone))))
        fields.append(("seconds", String(format: "%.3f", Swift.max(0, secondsShown))))
        fields.append(("outcome", JSONText.quoted(outcome.word)))
        if let reason = outcome.reason { fields.append(("reason", JSONText.quoted(reason))) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

/// Wall-clock times as the proof-of-play file writes them: 2026-11-23T21:04:05.123+01:00.
public enum ISOTime {
    public static func text(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let text = formatter.string(from: date)
        // "Z" is ISO 8601's offset zero; +00:00 says the same in the form every other line has.
        return text.hasSuffix("Z") ? text.dropLast() + "+00:00" : text
    }

    /// Reads what `text` wrote (with or without fractional seconds).
    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// JSON string literals, escaped by hand so a line is written without Foundation's encoder
/// (which reorders keys and escapes slashes).
enum JSONText {
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
