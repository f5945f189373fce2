import Foundation
import KioskCore
import KioskPlayer

/// What every request source is handed: the player and the application's services. `kiosk run`
/// makes one value once every service exists and gives the same value to the control socket and
/// to MQTT (and to the sources that come next), so a command one source reaches, all reach: a
/// source handed its services one at a time once missed content sync (`sync_now` over MQTT said
/// "content sync is off" while the socket worked). `kiosk play` has the player alone.
public struct Services: Sendable {
    /// What requests go to and properties are read from: the engine, or a wrapper of it.
    public let player: any ControlledPlayer
    /// Where `display_power` goes and what `schedule` reads; nil: `display_power` goes to the player.
    public let schedule: (any ScheduleControl)?
    /// What `trigger NAME` fires; nil: the command is refused.
    public let triggers: (any TriggerControl)?
    /// `sync_now` and the `sync` property; nil: refused, and null.
    public let contentSync: (any ContentSyncControl)?
    /// `override` and `override_cancel`; nil: refused.
    public let overrides: (any OverrideControl)?
    /// The `health` property and the MQTT status's alerts; nil: null, and none.
    public let health: (any HealthControl)?
    /// `cap XML`; nil: refused.
    public let alerts: (any AlertControl)?
    /// Resolves relative sources of `load` (kiosk.conf's directory for `run`).
    public let baseDirectory: String

    public init(player: any ControlledPlayer, schedule: (any ScheduleControl)? = nil,
                triggers: (any TriggerControl)? = nil, contentSync: (any ContentSyncControl)? = nil,
                overrides: (any OverrideControl)? = nil, health: (any HealthControl)? = nil,
                alerts: (any AlertControl)? = nil, baseDirectory: String = FileManager.default.currentDirectoryPath) {
        self.player = player
        self.schedule = schedule
        self.triggers = triggers
        self.contentSync = contentSync
        self.overrides = overrides
        self.health = health
        self.alerts = alerts
        self.baseDirectory = baseDirectory
    }
}

/// Where event lines that are not the player's go (content sync's `sync_progress`,
/// `sync_failed`, `sync_switched`): the socket's clients and the fleet's event topic alike.
public protocol ServiceEventObserver: AnyObject, Sendable {
    /// Any thread; must only queue.
    func post(line event: ControlValue)
}
