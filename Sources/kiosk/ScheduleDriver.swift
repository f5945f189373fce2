import Foundation
import KioskCore
import Logging

/// The schedule as a source of player requests: a thread that looks at the wall clock at least
/// once a second (`ScheduleTicker`; a clock that jumps is seen within that second) and sends
/// what changed: the playlist, an insert, the screen's power. A reload of kiosk.conf hands it
/// new rules; its first look after that says again which playlist and power state apply.
final class ScheduleDriver: @unchecked Sendable {
    // Safe to share: `ticker`, `requests` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var ticker: ScheduleTicker
    private var requests: ScheduleRequests
    private var stopping = false
    private var thread: Thread?
    private let sink: PlayerRequestSink
    private let logger: Logger

    /// `ticker` has had its first tick (what the player starts with was taken from it).
    init(ticker: ScheduleTicker, requests: ScheduleRequests, sink: PlayerRequestSink, logger: Logger) {
        self.ticker = ticker
        self.requests = requests
        self.sink = sink
        self.logger = logger
    }

    /// The first look: what the player must start with (the playlist's entries) and the
    /// requests to send once it runs (the screen off, outside `display.power`).
    static func firstLook(_ settings: ScheduleSettings, requests: ScheduleRequests,
                          now: Date = Date()) -> (ticker: ScheduleTicker, entries: [PlaylistEntry], then: [PlayerRequest]) {
        var ticker = ScheduleTicker(evaluator: ScheduleEvaluator(schedule: settings.rules, clock: ZoneClock(zone: settings.zone)))
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
    static func requests(for config: KioskConfig, defaultEntries: [PlaylistEntry], logger: Logger) -> ScheduleRequests {
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

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "kiosk-schedule"
        self.thread = thread
        thread.start()
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// New rules from a reload: looked at at once, as at start.
    func replace(_ settings: ScheduleSettings, requests: ScheduleRequests) {
        condition.withLock {
            ticker = ScheduleTicker(evaluator: ScheduleEvaluator(schedule: settings.rules, clock: ZoneClock(zone: settings.zone)))
            self.requests = requests
            condition.broadcast()
        }
    }

    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !stopping {
            let now = Date()
            let actions = ticker.tick(now: now)
            for action in actions {
                logger.notice("schedule: \(Self.describe(action))")
                for request in requests.requests(for: action) { sink.send(request) }
            }
            let wait = ticker.secondsToNextTick(now: now)
            _ = condition.wait(until: Date().addingTimeInterval(wait))
        }
    }

    private static func describe(_ action: ScheduleTicker.Action) -> String {
        switch action {
        case .switchPlaylist(let state): "playlist \(state.playlist)"
        case .power(let on): "display power \(on ? "on" : "off")"
        case .playInsert(let insert): "insert '\(insert.name)'"
        }
    }
}
