import KioskCore
import KioskPlayer

/// Carries out parsed requests on the player (sending its requests, reading its properties)
/// and turns its events into event lines: the one vocabulary of the control socket and of
/// MQTT (`FleetBridge`). Each user has its own, used from one thread only (the socket's
/// server thread, the bridge's thread).
public final class ControlDispatcher {
    let services: Services
    var player: any ControlledPlayer { services.player }
    var schedule: (any ScheduleControl)? { services.schedule }
    var triggers: (any TriggerControl)? { services.triggers }
    var contentSync: (any ContentSyncControl)? { services.contentSync }
    var baseDirectory: String { services.baseDirectory }
    private var names = ControlEventNames()

    public init(services: Services) {
        self.services = services
    }

    /// The reply for a request line from a client with no connection of its own (MQTT): the
    /// same commands, but `observe` has no connection to send property changes on.
    public func reply(to line: String) -> ControlValue {
        reply(to: line, from: nil)
    }

    /// Carries out a command trigger's line (KioskService's LiveTriggers): nil when it was
    /// done, else the reply's reason, as a client would read it.
    public func refusal(carryingOut line: String) -> String? {
        guard case .string(let answer)? = reply(to: line, from: nil)["error"], answer != "success" else { return nil }
        return answer
    }

    /// The reply line's value for one request line.
    func reply(to line: String, from connection: ControlConnection?) -> ControlValue {
        let request: ControlRequest
        do {
            request = try ControlRequestParser.parse(line)
        } catch {
            return ControlMessage.failure(error.description, requestID: error.requestID)
        }
        switch perform(request.command, named: request.name, for: connection) {
        case .success(let data): return ControlMessage.success(data, requestID: request.requestID)
        case .failure(let error): return ControlMessage.failure(error.description, requestID: request.requestID)
        }
    }

    /// `name`: the command's word, which a refusal's reply begins with.
    private func perform(_ command: ControlCommand, named name: String,
                         for connection: ControlConnection?) -> Result<ControlValue, ControlRequestError> {
        switch command {
        case .request(let request):
            // The engine decides and says why not (the state machine, the navigator, the
            // shared timeline, the layers): no check is copied here.
            if let refusal = player.perform(request) { return .failure(ControlRequestError("\(name): \(refusal)")) }
        case .load(let sources):
            return load(sources)
        case .get(let property):
            return .success(value(of: property))
        case .observe(let property):
            guard let connection else { return .failure(Self.noObservations("observe")) }
            connection.observed.updateValue(nil, forKey: property)   // the current value follows as an event
        case .unobserve(let property):
            guard let connection else { return .failure(Self.noObservations("unobserve")) }
            connection.observed.removeValue(forKey: property)
        case .displayPower(let mode):
            if let schedule {
                schedule.setDisplayPowerMode(mode)
            } else {
                // No schedule (`kiosk play`): auto means the screen's default, on.
                player.send(.setDisplayPower(on: mode != .off))
            }
        case .trigger(let name):
            return fire(name)
        case .commands:
            return .success(ControlMessage.commandList)
        case .screenshot(let path):
            do {
                try player.saveScreenshot(to: path)
            } catch {
                return .failure(ControlRequestError("screenshot: \(error)"))
            }
            return .success(.string(path))
        case .syncNow:
            guard let contentSync else {
                return .failure(ControlRequestError("sync_now: content sync is off (kiosk.conf sync.manifest is none)"))
            }
            contentSync.syncNow()
        case .override(let overrideName):
            guard let overrides = services.overrides else { return .failure(Self.noOverrides(name)) }
            if let refusal = overrides.start(overrideName) { return .failure(ControlRequestError("\(name): \(refusal)")) }
        case .overrideText(let overrideName, let text, let priority, let seconds):
            guard let overrides = services.overrides else { return .failure(Self.noOverrides(name)) }
            if let refusal = overrides.startText(overrideName, text: text, priority: priority, seconds: seconds) {
                return .failure(ControlRequestError("\(name): \(refusal)"))
            }
        case .overrideCancel(let overrideName):
            guard let overrides = services.overrides else { return .failure(Self.noOverrides(name)) }
            if let refusal = overrides.cancel(overrideName) { return .failure(ControlRequestError("\(name): \(refusal)")) }
        case .cap(let document):
            guard let alerts = services.alerts else {
                return .failure(ControlRequestError("\(name): kiosk.conf has no alerts.cap (or this is `kiosk play`, which has none)"))
            }
            if let refusal = alerts.take(document) { return .failure(ControlRequestError("\(name): \(refusal)")) }
        }
        return .success(.null)
    }

    static func noOverrides(_ word: String) -> ControlRequestError {
        ControlRequestError("\(word): kiosk.conf defines no overrides (or this is `kiosk play`, which has none)")
    }

    static func noObservations(_ word: String) -> ControlRequestError {
        ControlRequestError("\(word): only on a control socket connection, which is where property changes are sent")
    }

    /// kiosk.conf's trigger `name`, as its key or zone would fire it.
    private func fire(_ name: String) -> Result<ControlValue, ControlRequestError> {
        let table = triggers?.triggers ?? TriggerSet()
        guard !table.isEmpty else { return .failure(ControlRequestError("trigger: kiosk.conf defines no triggers")) }
        guard let trigger = table.trigger(named: name) else {
            return .failure(ControlRequestError("trigger: no trigger '\(quotedForMessage(name))': kiosk.conf defines "
                                                + table.names.map { "'\($0)'" }.joined(separator: ", ")))
        }
        if let line = trigger.commandLine {
            // Checked when kiosk.conf was read, and never `trigger` itself (no loop).
            do {
                let request = try ControlRequestParser.parse(line)
                return perform(request.command, named: request.name, for: nil)
            } catch {
                return .failure(ControlRequestError("trigger: '\(name)': \(error.description)"))
            }
        }
        guard let request = trigger.request else {
            return .failure(ControlRequestError("trigger: '\(name)' has nothing to play: \(trigger.problem ?? "no entries")"))
        }
        if let refusal = player.perform(request) { return .failure(ControlRequestError("trigger: \(refusal)")) }
        return .success(.null)
    }

    /// A new playlist, expanded like kiosk.conf's items, played from its first entry.
    private func load(_ sources: [String]) -> Result<ControlValue, ControlRequestError> {
        // A URL kiosk cannot open as written is left out with why, as kiosk.conf refuses it (a
        // misspelt scheme was tried again for good as a live source that never answered).
        var badURLs: [String] = []
        let items = sources.enumerated().compactMap { index, text -> ItemConfig? in
            let source = ItemSource.classify(text, baseDirectory: baseDirectory, fileSystem: LocalFileSystem())
            if case .url(let url) = source, let problem = SourceURLCheck.problem(in: url) {
                badURLs.append("load source \(index + 1): the URL '\(NetworkURL.masked(url))' cannot be opened: \(problem)")
                return nil
            }
            return ItemConfig(source: source, location: SourceLocation(file: "load source \(index + 1)", line: 0, column: 0))
        }
        let expansion = PlaylistExpander().expand(items)
        let problems = badURLs + expansion.diagnostics.map { "\($0)" }
        guard !expansion.entries.isEmpty else {
            // Refused, so nothing waits for a missing file to appear (the playlist's words).
            let reasons = problems.map { $0.replacingOccurrences(of: "; skipped until it appears", with: "") }.joined(separator: "; ")
            return .failure(ControlRequestError("load: nothing to play\(reasons.isEmpty ? "" : ": " + reasons)"))
        }
        if let refusal = player.perform(.load(expansion.entries)) { return .failure(ControlRequestError("load: \(refusal)")) }
        return .success(.object([("playlist_count", .integer(Int64(expansion.entries.count))), ("warnings", .array(problems.map(ControlValue.string)))]))
    }

    /// The status MQTT retains on its status topic and the web page's `GET /api/v1/status` answers:
    /// one summary for every source that shows one.
    public var fleetStatus: FleetStatus {
        let health = services.health?.health
        return FleetStatus(version: KioskVersion.text,
                           state: value(of: .timeControlStatus).plainText,
                           item: value(of: .item).integerValue,
                           title: value(of: .title).stringValue,
                           time: value(of: .time).numberValue ?? 0,
                           displayOn: value(of: .displayPower) == .string("on"),
                           volume: value(of: .volume).integerValue,
                           muted: value(of: .muted).boolValue,
                           alerts: health?.alerts, temperature: health?.temperatures.map(\.celsius).max(),
                           next: player.nextItemTitle)
    }

    public func value(of property: ControlProperty) -> ControlValue {
        switch property {
        case .status: return .string(ControlEventNames.name(of: player.status))
        case .timeControlStatus: return .string(player.timeControlStatus.rawValue)
        case .time: return .number(ControlMessage.rounded(player.currentTime.seconds))
        case .duration: return player.duration.map { .number(ControlMessage.rounded($0.seconds)) } ?? .null
        case .item: return player.currentItemIndex.map { .integer(Int64($0)) } ?? .null
        case .title: return player.currentItemTitle.map { .string($0) } ?? .null
        case .playlistCount: return .integer(Int64(player.playlistCount))
        case .playlist:
            return .array(player.playlist.enumerated().map { index, entry in
                .object([("index", .integer(Int64(index))), ("title", .string(NetworkURL.masked(entry.title))),
                         ("path", .string(NetworkURL.masked(entry.media.description)))])
            })
        case .volume: return .integer(Int64(player.volume))
        case .muted: return .bool(player.isMuted)
        case .rate: return .number(player.defaultRate.doubleValue)
        case .framesPresented: return .integer(Int64(player.framesPresented))
        case .framesDropped: return .integer(Int64(player.framesDropped))
        case .displayPower: return .string(player.isDisplayOn ? "on" : "off")
        case .schedule: return schedule?.scheduleStatus ?? .null
        case .sync: return contentSync?.syncStatus ?? .null
        case .health: return services.health?.health.map { $0.controlValue(at: $0.sampledAt) } ?? .null
        }
    }

    /// The event line for a player event; nil for what is only a property change.
    public func message(for event: PlayerEvent) -> ControlValue? {
        let time = player.currentTime.seconds
        switch event {
        case .playback(let playback, let item, let emitted):
            return names.event(for: playback, current: item, time: emitted.seconds)
        case .time(let mediaTime, let item):
            return ControlMessage.event(.time, item: item, time: mediaTime.seconds)
        case .itemSkipped(let index, let reason):
            return ControlMessage.event(.itemFailed, item: index, time: 0, [("reason", .string(reason))])
        case .nothingPlayable(let retryAfter):
            return ControlMessage.event(.error, item: nil, time: 0,
                                        [("message", .string("nothing in the playlist can play")),
                                         ("retry_after", .number(ControlMessage.rounded(retryAfter.seconds)))])
        case .finished:
            return ControlMessage.event(.finished, item: player.currentItemIndex, time: time)
        case .displayPower(let on):
            return ControlMessage.event(.displayPower, item: nil, time: time, [("on", .bool(on))])
        case .sourceLost(let index, let reason):
            return ControlMessage.event(.sourceLost, item: index, time: time, [("reason", .string(reason))])
        case .sourceBack(let index, let seconds):
            return ControlMessage.event(.sourceBack, item: index, time: time,
                                        [("after", .number(ControlMessage.rounded(seconds)))])
        case .playlistRequest, .currentItemMoved:
            return nil   // the item events that follow say what changed
        }
    }
}

/// The plain values the status summary reads out of property values.
extension ControlValue {
    var integerValue: Int? { if case .integer(let value) = self { Int(value) } else { nil } }
    var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    var numberValue: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}
