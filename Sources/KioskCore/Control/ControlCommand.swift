/// The control socket's vocabulary (close to mpv's JSON IPC): what a client may ask, which
/// properties it may read or observe.

/// A player property that `get` reads and `observe` watches.
public enum ControlProperty: String, Sendable, Hashable, CaseIterable {
    case status
    case timeControlStatus = "time_control_status"
    /// Media time in the current item, seconds.
    case time
    case duration
    /// The current item's playlist index.
    case item
    case title
    case playlistCount = "playlist_count"
    case volume
    case muted
    case rate
    case framesPresented = "frames_presented"
    case framesDropped = "frames_dropped"
}

/// One command, checked: the right arguments, of the right types, in range.
public enum ControlCommand: Sendable, Equatable {
    public enum SeekMode: String, Sendable, Equatable { case absolute, relative }
    public enum MuteChange: Sendable, Equatable { case set(Bool), toggle }

    case play
    case pause
    case toggle
    case seek(seconds: Double, mode: SeekMode)
    case next
    case previous
    case goto(index: Int)
    /// A new playlist: files, directories, globs or URLs, expanded like kiosk.conf's items.
    case load(sources: [String])
    case volume(Int)
    case mute(MuteChange)
    /// A playing rate, 0.25...4 (0 is `pause`).
    case rate(Rational)
    case get(ControlProperty)
    case observe(ControlProperty)
    case unobserve(ControlProperty)
    /// The list of commands, properties and events.
    case commands

    /// Every command's name and arguments, for `commands` and error messages.
    public static let usage: [(name: String, arguments: String)] = [
        ("play", ""), ("pause", ""), ("toggle", ""),
        ("seek", "<seconds> [absolute|relative]"), ("next", ""), ("previous", ""), ("goto", "<index>"),
        ("load", "<source>..."), ("volume", "<0-100>"), ("mute", "[true|false|toggle]"),
        ("rate", "<0.25-4>"), ("get", "<property>"), ("observe", "<property>"), ("unobserve", "<property>"),
        ("commands", ""),
    ]

    /// The events the socket sends, for `commands`.
    public static let eventNames = ["status", "time_control_status", "time", "item_started", "item_ended",
                                    "item_failed", "seek", "error", "finished", "property_change"]
}

/// A parsed request line: the command and the `request_id` to echo in the reply.
public struct ControlRequest: Sendable, Equatable {
    public var command: ControlCommand
    public var requestID: ControlValue?

    public init(command: ControlCommand, requestID: ControlValue? = nil) {
        self.command = command
        self.requestID = requestID
    }
}

/// Why a request line was refused; `description` is the reply's error string.
public struct ControlRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// Echoed in the error reply when the line got that far.
    public var requestID: ControlValue?

    public init(_ description: String, requestID: ControlValue? = nil) {
        self.description = description
        self.requestID = requestID
    }
}
