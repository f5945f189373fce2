import Foundation

/// Where a kiosk was, saved every few seconds and on a clean stop so that a restart after a
/// power loss picks up there (`playback.resume`). The file is small JSON; it is written with
/// a rename over the old one, so a reader sees the old or the new one whole, never half (a
/// torn file can still appear on a filesystem that reorders writes: it is then ignored).
public struct ResumeState: Sendable, Equatable, Codable {
    /// The format's name and version: a file that says something else is another program's,
    /// or a future kiosk's, and is not guessed at.
    public static let formatName = "kiosk-resume"
    public static let currentVersion = 1

    public var format = ResumeState.formatName
    public var version = ResumeState.currentVersion
    /// The kiosk.conf this kiosk played from (absolute): a state file left by another
    /// configuration (a second instance, a test) is not taken for this one.
    public var config: String
    /// The entry's index in the playlist that played it, and its path or URL (the identity:
    /// the index breaks ties between equal paths, and survives nothing else).
    public var index: Int
    public var path: String
    /// Seconds into the item (after its trim start), as the player's `currentTime`.
    public var position: Double
    /// When this was saved (ISO 8601), for people reading the file.
    public var saved: String

    public init(config: String, index: Int, path: String, position: Double, saved: Date) {
        self.config = config
        self.index = index
        self.path = path
        self.position = position
        self.saved = ISOTime.text(saved, timeZone: .current)
    }

    /// The file's bytes: one JSON object and a newline.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only strings and finite numbers: encoding cannot fail.
        var data = (try? encoder.encode(self)) ?? Data()
        data.append(0x0A)
        return data
    }

    /// Why a state file is not used.
    public enum Rejection: Error, Sendable, Equatable, CustomStringConvertible {
        case empty
        /// Not whole JSON: the write was cut short.
        case torn
        /// Another format, version or configuration.
        case foreign(String)

        public var description: String {
            switch self {
            case .empty: "the file is empty"
            case .torn: "the file is not whole JSON (cut short while it was written?)"
            case .foreign(let what): what
            }
        }
    }

    /// Reads a state file's bytes, saved by a kiosk playing `config`.
    public static func decode(_ data: Data, config: String) -> Result<ResumeState, Rejection> {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0 }) { return .failure(.empty) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return .failure(.torn) }
        guard object["format"] as? String == formatName else {
            return .failure(.foreign("it is not a kiosk resume file (format \(object["format"].map { "\($0)" } ?? "missing"))"))
        }
        guard object["version"] as? Int == currentVersion else {
            return .failure(.foreign("it was written by another kiosk version (format version "
                                     + "\(object["version"].map { "\($0)" } ?? "missing"), this kiosk reads \(currentVersion))"))
        }
        guard let state = try? JSONDecoder().decode(ResumeState.self, from: data) else {
            return .failure(.foreign("its fields are not those of version \(currentVersion)"))
        }
        guard state.config == config else {
            return .failure(.foreign("it belongs to another configuration (\(state.config))"))
        }
        guard state.index >= 0, state.position.isFinite, state.position >= 0 else {
            return .failure(.foreign("its index or position is out of range"))
        }
        return .success(state)
    }
}

/// Where to resume in the playlist the kiosk starts with.
public enum ResumePoint: Sendable, Equatable {
    /// The entry at `index`, at `position` seconds (nil: from its start).
    case entry(index: Int, position: Double?)
    /// The saved item is not in the playlist any more: start from the beginning.
    case itemGone

    /// Finds `state`'s item among `sources` (the entries' paths or URLs, in playlist order):
    /// by path, the index as tie-breaker (the same index, else the nearest, the earlier on a
    /// tie). An item found at another index resumes there.
    public static func find(_ state: ResumeState, in sources: [String], mode: ResumeMode) -> ResumePoint? {
        guard mode != .off else { return nil }
        let matches = sources.indices.filter { sources[$0] == state.path }
        guard let index = matches.min(by: { (abs($0 - state.index), $0) < (abs($1 - state.index), $1) }) else {
            return .itemGone
        }
        return .entry(index: index, position: mode == .position ? state.position : nil)
    }
}

/// Taking a freshly started player to a `ResumePoint`, with the requests keys and the control
/// socket use: `goto` at once, then `seek` once that item is ready (a seek before is refused:
/// the item is still being opened). Pure: the caller feeds it the player's events.
public struct ResumeStart: Sendable, Equatable {
    public let index: Int
    public let position: Double?
    /// The player is where it should be (or will not get there): the position may be saved.
    public private(set) var isSettled = false

    public init(_ point: ResumePoint?) {
        if case .entry(let index, let position)? = point {
            self.index = index
            self.position = position.flatMap { $0 > 0 ? $0 : nil }
        } else {
            index = 0
            position = nil
            isSettled = true
        }
    }

    /// Where the player starts: the entry, opened at the position before its first frame is
    /// shown (AVFoundation's seek(to:) before play()), so the item's start never flashes up
    /// before the saved place. Nil: the playlist's start.
    public var startPoint: PlaylistStartPoint? {
        isSettled && index == 0 && position == nil ? nil
            : PlaylistStartPoint(index: index, position: position.map { MediaTime(seconds: $0, timescale: 1000) })
    }

    /// The entry at `index` began (`itemStarted`): from then on the position is real.
    public mutating func itemStarted(index startedIndex: Int?) {
        if startedIndex == index { isSettled = true }
    }

    /// No event came in time (a refused seek, an item that never opens): save what plays.
    public mutating func giveUp() { isSettled = true }
}

/// An entry and a place in it to begin playback at, instead of the playlist's start.
public struct PlaylistStartPoint: Sendable, Equatable {
    public let index: Int
    /// Media time in the entry; nil: its start.
    public let position: MediaTime?

    public init(index: Int, position: MediaTime?) {
        self.index = index
        self.position = position
    }
}
