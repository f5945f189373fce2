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
    /// The playlist playing now, entry by entry: `index` (what `goto` takes), `title`, `path`
    /// (a folder's files one by one, as expanded; URLs' credentials masked).
    case playlist
    case volume
    case muted
    case rate
    case framesPresented = "frames_presented"
    case framesDropped = "frames_dropped"
    /// "on" or "off": whether the screen is on now.
    case displayPower = "display_power"
    /// What the schedule chose and why, and its next change (ScheduleStatus); null without one.
    case schedule
    /// Content sync: state, files and bytes done of total, rate, last error, next check
    /// (ContentSyncStatus); null when sync.manifest is none.
    case sync
    /// The alerts and figures of `metrics.textfile` (HealthSnapshot), ages in seconds; null in
    /// `kiosk play`.
    case health
}

/// One command, checked: the right arguments, of the right types, in range. What the socket
/// asks of the player is a `PlayerRequest`, the vocabulary keys and touch use too; the other
/// cases are the socket's own (reading properties, and `load`, whose sources are expanded
/// against the file system before they become a playlist).
public enum ControlCommand: Sendable, Equatable {
    /// play, pause, toggle, seek, next, previous, goto, volume, mute, rate.
    case request(PlayerRequest)
    /// A new playlist: files, directories, globs or URLs, expanded like kiosk.conf's items.
    case load(sources: [String])
    case get(ControlProperty)
    case observe(ControlProperty)
    case unobserve(ControlProperty)
    /// The screen on or off until told otherwise, or `auto`: following `display.power` again.
    case displayPower(DisplayPowerMode)
    /// Fires kiosk.conf's trigger of this name (as its key or zone would).
    case trigger(name: String)
    /// The list of commands, properties and events.
    case commands
    /// What is on screen now saved as a PNG at `path` (absolute: the client's directory is not
    /// kiosk's), at the display's size; the player's own buffers, never a read-back of the CRTC.
    case screenshot(path: String)
    /// Content sync polls its manifest now rather than at the next interval.
    case syncNow
    /// kiosk.conf's override of this name takes the screen (or waits behind a higher one).
    case override(name: String)
    /// A card of these words takes the screen as override `name` (#35): kiosk.conf's text
    /// override of that name with other words (its colours, size, layers, priority and
    /// duration), or a new one, white on black; `priority` and `seconds` replace the defaults.
    case overrideText(name: String, text: String, priority: Int?, seconds: Double?)
    /// Ends the override of this name, or every override (nil).
    case overrideCancel(name: String?)
    /// A CAP 1.2 alert or feed, its XML as the argument, taken by `alerts.cap` as if its feed had
    /// brought it: a webhook's push, or `kiosk ctl cap FILE` (which sends the file's text).
    case cap(document: String)

    /// The events the socket sends, for `commands`.
    public static var eventNames: [String] { ControlEventName.allCases.map(\.rawValue) }
}

/// Every event line's name (`{"event": "item_started", ...}`): the socket's, MQTT's event topic
/// and `commands` all spell them from here.
public enum ControlEventName: String, Sendable, CaseIterable {
    case status
    case timeControlStatus = "time_control_status"
    case time
    case itemStarted = "item_started"
    case itemEnded = "item_ended"
    case itemFailed = "item_failed"
    case seek
    case error
    case finished
    case displayPower = "display_power"
    case propertyChange = "property_change"
    case syncProgress = "sync_progress"
    case syncFailed = "sync_failed"
    case syncSwitched = "sync_switched"
    case overrideStarted = "override_started"
    case overrideEnded = "override_ended"
    case sourceLost = "source_lost"
    case sourceBack = "source_back"
}

/// A parsed request line: the command and the `request_id` to echo in the reply.
public struct ControlRequest: Sendable, Equatable {
    public var command: ControlCommand
    public var requestID: ControlValue?
    /// The command's word as the line spelled it (`seek`): a refusal's reply begins with it.
    public var name: String

    public init(command: ControlCommand, requestID: ControlValue? = nil, name: String = "") {
        self.command = command
        self.requestID = requestID
        self.name = name
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
