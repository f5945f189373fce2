import Foundation
import KioskControl
import KioskCore
import Logging

/// The schedule as a source of player requests: a thread that looks at the wall clock at least
/// once a second (`ScheduleTicker`; a clock that jumps is seen within that second) and sends
/// what changed: the playlist, an insert, the screen's power. A reload of kiosk.conf hands it
/// new rules; its first look after that says again which playlist and power state apply.
/// The control socket's `display_power on|off` holds the screen's power against the schedule
/// until `display_power auto`.
package final class ScheduleDriver: ScheduleControl, @unchecked Sendable {
    // Safe to share: everything mutable is guarded by `condition`.
    private let condition = NSCondition()
    private var settings: ScheduleSettings
    private var ticker: ScheduleTicker
    private var requests: ScheduleRequests
    /// Set by a reload: the state and requests before it, so its first look does not switch
    /// to what already plays.
    private var reloadedFrom: (state: ScheduleState?, requests: ScheduleRequests)?
    private var powerMode = DisplayPowerMode.auto
    /// The power last asked of the player (the first look's requests set it).
    private var sentPower: Bool
    private var stopping = false
    private var thread: WorkerThread?
    private let sink: PlayerRequestSink
    private let logger: Logger

    /// `ticker` has had its first tick (what the player starts with was taken from it).
    package init(settings: ScheduleSettings, ticker: ScheduleTicker, requests: ScheduleRequests, sink: PlayerRequestSink,
         logger: Logger) {
        self.settings = settings
        self.ticker = ticker
        self.requests = requests
        sentPower = ticker.state?.powerOn ?? true
        self.sink = sink
        self.logger = logger
    }

    package func setDisplayPowerMode(_ mode: DisplayPowerMode) {
        condition.withLock {
            powerMode = mode
            logger.notice("control: display power \(mode.rawValue)")
            reconcilePower()
        }
    }

    package var scheduleStatus: ControlValue {
        condition.withLock { settings.dryRun(at: Date()).status(powerMode: powerMode) }
    }

    /// The first look: what the player must start with (the playlist's entries) and the
    /// requests to send once it runs (the screen off, outside `display.power`).
    package static func firstLook(_ settings: ScheduleSettings, requests: ScheduleRequests,
                          now: Date = Date()) -> (ticker: ScheduleTicker, entries: [PlaylistEntry], then: [PlayerRequest]) {
        var ticker = settings.ticker
        var entries = requests.playlists["default"] ?? []
        var then: [PlayerRequest] = []
        for action in ticker.tick(now: now) {
            if case .switchPlaylist(let state) = action {
                entries = requests.playlists[state.playlist] ?? []
            } else {
                then += requests.requests(for: action)
            }
        }
        return (ticker, entries, then)
    }

    /// The playlists and inserts' items of `config`, expanded (what cannot be now is logged).
    package static func requests(for config: KioskConfig, defaultEntries: [PlaylistEntry], logger: Logger) -> ScheduleRequests {
        var playlists = ["default": defaultEntries]
        for playlist in config.playlists {
            let expansion = PlaylistExpander().expand(playlist.items)
            for diagnostic in expansion.diagnostics { logger.warning("playlist \(playlist.name): \(diagnostic)") }
            playlists[playlist.name] = expansion.entries
        }
        var items: [String: [PlaylistEntry]] = [:]
        for insert in config.scheduleRules.inserts {
            guard case .item(let text) = insert.content else { continue }
            let source = ItemSource.classify(text, baseDirectory: "/", fileSystem: LocalFileSystem())
            let location = SourceLocation(file: "insert '\(insert.name)'", line: 0, column: 0)
            items[text] = PlaylistExpander().expand([ItemConfig(source: source, location: location)]).entries
        }
        return ScheduleRequests(playlists: playlists, insertItems: items, switchMode: config.scheduleRules.switchMode)
    }

    package func start() {
        thread = WorkerThread.start(name: "kiosk-schedule") { [self] in run() }
    }

    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// New rules from a reload: looked at at once, as at start, but what already plays is not
    /// switched to again (`ScheduleRequests.afterReload`).
    package func replace(_ settings: ScheduleSettings, requests: ScheduleRequests) {
        condition.withLock {
            reloadedFrom = (ticker.state, self.requests)
            self.settings = settings
            ticker = settings.ticker
            self.requests = requests
            condition.broadcast()
        }
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            let now = Date()
            var actions = ticker.tick(now: now)
            if let (state, before) = reloadedFrom {
                actions = requests.afterReload(actions, playing: state, before: before)
                reloadedFrom = nil
            }
            for action in actions {
                logger.notice("schedule: \(Self.describe(action))")
                // The screen's power is settled below, with the control socket's hold.
                if case .power = action { continue }
                for request in requests.requests(for: action) { sink.send(request) }
            }
            reconcilePower()
            let wait = ticker.secondsToNextTick(now: now)
            _ = condition.wait(until: conditionDeadline(in: wait))
        }
    }

    /// Under `condition`: asks the player for the power the schedule and the hold give, if
    /// that is not what it was last asked.
    private func reconcilePower() {
        let on = powerMode.powerOn(scheduled: ticker.state?.powerOn ?? true)
        guard on != sentPower else { return }
        sentPower = on
        if powerMode != .auto { logger.notice("display power \(on ? "on" : "off"), held by the control socket") }
        sink.send(.setDisplayPower(on: on))
    }

    private static func describe(_ action: ScheduleTicker.Action) -> String {
        switch action {
        case .switchPlaylist(let state): "playlist \(state.playlist)"
        case .power(let on): "display power \(on ? "on" : "off")"
        case .playInsert(let insert): "insert '\(insert.name)'"
        }
    }
}
