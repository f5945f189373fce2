import KioskCore
import KioskPlayer

/// What the control socket needs of a player: somewhere to send requests and hear whether they
/// were carried out, and the properties `get` and `observe` read. The engine conforms as it is;
/// a fake can stand in for it.
public protocol ControlledPlayer: PlayerRequestSink {
    /// Sends `request` and waits for the engine's decision: nil when carried out (or taken for
    /// later), else why not, which the reply carries after the command's word.
    func perform(_ request: PlayerRequest) -> PlayerRefusal?
    var status: PlayerItemStatus { get }
    var timeControlStatus: TimeControlStatus { get }
    /// Media time in the current item.
    var currentTime: MediaTime { get }
    /// The rate `play` resumes at, which the `rate` property reports.
    var defaultRate: Rational { get }
    var volume: Int { get }
    var isMuted: Bool { get }
    var playlistCount: Int { get }
    /// The entries of the playlist playing now, `currentItemIndex` counting in them.
    var playlist: [PlaylistEntry] { get }
    var currentItemIndex: Int? { get }
    var currentItemTitle: String? { get }
    /// What plays after the current item as things stand (QueuePlayer.nextItemTitle).
    var nextItemTitle: String? { get }
    var framesPresented: Int { get }
    var framesDropped: Int { get }
    var isDisplayOn: Bool { get }
    /// Saves what is on screen now as a PNG at `path`; throws why not, in one line.
    func saveScreenshot(to path: String) throws
}

/// The schedule as the control socket sees it: `display_power on|off|auto` holds the screen's
/// power or hands it back to the schedule, and the `schedule` property describes it. Without
/// one (`kiosk play`), `display_power` goes to the player directly.
public protocol ScheduleControl: AnyObject, Sendable {
    func setDisplayPowerMode(_ mode: DisplayPowerMode)
    /// The `schedule` property's value (ScheduleStatus).
    var scheduleStatus: ControlValue { get }
}

/// Content sync as the control socket reaches it: `sync_now` and the `sync` property. Without
/// one (`kiosk play`, or sync.manifest none) the command is refused and the property is null.
public protocol ContentSyncControl: AnyObject, Sendable {
    /// Asks for a pass now; the sync thread starts it as soon as the one under way (if any) ends.
    func syncNow()
    var syncStatus: ControlValue { get }
    /// For the service's STATUS= line (nil: nothing to add).
    var serviceStatus: String? { get }
}

/// kiosk.conf's triggers as the control socket's `trigger NAME` finds them: the table in force
/// now (a reload replaces it). Without one (`kiosk play`) the command is refused.
public protocol TriggerControl: AnyObject, Sendable {
    var triggers: TriggerSet { get }
}

/// kiosk.conf's overrides as `override NAME` and `override_cancel [NAME]` reach them (KioskService's
/// `OverrideDesk`). Each answers nil when done, else why not. Without one (`kiosk play`) both
/// are refused.
public protocol OverrideControl: AnyObject, Sendable {
    func start(_ name: String) -> String?
    /// `override_text`: a card of `text` as override `name`; nil when taken, else why not.
    func startText(_ name: String, text: String, priority: Int?, seconds: Double?) -> String?
    func cancel(_ name: String?) -> String?
}

extension QueuePlayer: ControlledPlayer {
    public func perform(_ request: PlayerRequest) -> PlayerRefusal? { perform(request, timeout: 5) }
}

/// kiosk.conf's `alerts.cap` as `cap XML` reaches it (KioskService's `CapPoller`): a pushed
/// alert or feed, read and acted on as a polled one. nil when taken, else why not. Without one
/// (no `alerts.cap`, or `kiosk play`) the command is refused.
public protocol AlertControl: AnyObject, Sendable {
    func take(_ document: String) -> String?
}

/// The kiosk's health as every request source reads it (`get health`, the MQTT status's alerts):
/// `kiosk run`'s `HealthSampler`. nil until the player exists.
public protocol HealthControl: AnyObject, Sendable {
    var health: HealthSnapshot? { get }
}
