/// What kiosk does with the CAP alerts a feed gives, each poll (kiosk.conf `alerts: {cap: …}`,
/// #35). The mistakes peers made are the rules here:
/// - only `status` Actual is shown; Test, Exercise, System and Draft get one line each, once
///   (a feed with no alert is a quiet feed, not a test);
/// - an Alert starts an override; an Update ends what its `references` name and starts itself;
///   a Cancel ends what it references and starts nothing (it is not a new alert), also when it
///   comes before the alert it cancels;
/// - past its `expires`, an alert is not shown; without one it lasts `defaultDuration`;
/// - `areas`, `minSeverity` and `minUrgency` choose the first `<info>` that passes; an info
///   without `<area>` is for everywhere;
/// - each alert (its `sender,identifier,sent`) is acted on once, however often the feed repeats
///   it and across restarts (`exported`/`restore`), forgotten a day after it expires.
public struct CapAlertBook: Sendable, Equatable {
    public struct Filter: Sendable, Equatable {
        /// Area names or geocodes; empty: every area.
        public var areas: [String]
        public var minSeverity: CapAlert.Severity
        public var minUrgency: CapAlert.Urgency
        /// How long an alert without `expires` is shown, in seconds.
        public var defaultDuration: Int64

        public init(areas: [String] = [], minSeverity: CapAlert.Severity = .unknown, minUrgency: CapAlert.Urgency = .unknown,
                    defaultDuration: Int64 = 3600) {
            self.areas = areas
            self.minSeverity = minSeverity
            self.minUrgency = minUrgency
            self.defaultDuration = defaultDuration
        }
    }

    /// An alert to put on screen: its key (the override's id), texts and end.
    public struct Notice: Sendable, Equatable {
        public var key: CapAlert.Key
        public var event: String?
        public var headline: String?
        /// The instruction, else the description: what a passer-by must do.
        public var text: String?
        public var severity: CapAlert.Severity
        /// Seconds since 1970, UTC.
        public var expires: Int64
        /// The alerts this one updates that were on: it takes their place in one step (ended
        /// first, the playlist came back between the two for a frame and a proof-of-play line).
        public var replaces: [CapAlert.Key] = []
    }

    public enum Action: Sendable, Equatable {
        case show(Notice)
        /// The alert `key` is over (cancelled, updated); `why` for the log.
        case end(CapAlert.Key, why: String)
        /// One line for the log: an alert not shown, and why.
        case note(String)
    }

    public var filter: Filter
    /// Every key acted on, with when to forget it (seconds since 1970).
    private var seen: [CapAlert.Key: Int64] = [:]
    /// The keys shown and not yet ended.
    public private(set) var active: Set<CapAlert.Key> = []
    static let forgetAfter: Int64 = 86_400
    static let capacity = 10_000

    public init(filter: Filter) { self.filter = filter }

    /// The actions for one poll's alerts at `now` (seconds since 1970), oldest `sent` first.
    public mutating func take(_ alerts: [CapAlert], now: Int64) -> [Action] {
        seen = seen.filter { $0.value > now }
        var actions: [Action] = []
        let ordered = alerts.sorted { (CapTime.seconds($0.key.sent) ?? 0) < (CapTime.seconds($1.key.sent) ?? 0) }
        for alert in ordered where seen[alert.key] == nil {
            let expires = alert.infos.compactMap(\.expires).max()
            remember(alert.key, until: (expires ?? now + filter.defaultDuration) + Self.forgetAfter)
            actions += act(on: alert, expires: expires, now: now)
        }
        return actions
    }

    /// An alert shown that ended by itself (its override expired): no longer active.
    public mutating func ended(_ key: CapAlert.Key) { active.remove(key) }

    private mutating func act(on alert: CapAlert, expires: Int64?, now: Int64) -> [Action] {
        let name = "CAP alert \(alert.key)"
        guard alert.status == .actual else {
            return [.note("\(name): status \(alert.status.rawValue), not shown")]
        }
        var actions: [Action] = []
        var replaced: [CapAlert.Key] = []
        switch alert.messageType {
        case .ack, .error:
            return [.note("\(name): msgType \(alert.messageType.rawValue), nothing to show")]
        case .cancel, .update:
            for reference in alert.references {
                if active.remove(reference) != nil {
                    replaced.append(reference)
                    actions.append(.end(reference, why: "\(alert.messageType == .cancel ? "cancelled" : "updated") by \(alert.key)"))
                } else {
                    // Not shown (yet): an original arriving after its Cancel stays unshown.
                    remember(reference, until: now + filter.defaultDuration + Self.forgetAfter)
                }
            }
            if alert.messageType == .cancel { return actions }
        case .alert:
            break
        }
        if let expires, expires <= now {
            return actions + [.note("\(name): expired at \(CapTime.text(expires)) (now \(CapTime.text(now))), not shown")]
        }
        guard let info = alert.infos.first(where: passes) else {
            return actions + [.note("\(name): \(refusal(alert)), not shown")]
        }
        active.insert(alert.key)
        // An update shown ends what it updates itself (`replaces`); one not shown ends it above.
        return [.show(Notice(key: alert.key, event: info.event, headline: info.headline,
                             text: info.instruction ?? info.description, severity: info.severity,
                             expires: info.expires ?? expires ?? now + filter.defaultDuration, replaces: replaced))]
    }

    private func passes(_ info: CapAlert.Info) -> Bool {
        info.severity >= filter.minSeverity && info.urgency >= filter.minUrgency && inAreas(info)
    }

    private func inAreas(_ info: CapAlert.Info) -> Bool {
        guard !filter.areas.isEmpty, !info.areas.isEmpty else { return true }
        let wanted = filter.areas.map { $0.lowercased() }
        return info.areas.joined().contains { name in
            let name = name.lowercased()
            return wanted.contains { name == $0 || name.contains($0) }
        }
    }

    private func refusal(_ alert: CapAlert) -> String {
        if alert.infos.isEmpty { return "no <info>" }
        if !alert.infos.contains(where: { $0.severity >= filter.minSeverity }) { return "severity below \(filter.minSeverity.rawValue)" }
        if !alert.infos.contains(where: { $0.urgency >= filter.minUrgency }) { return "urgency below \(filter.minUrgency.rawValue)" }
        return "outside the areas \(filter.areas.joined(separator: ", "))"
    }

    private mutating func remember(_ key: CapAlert.Key, until: Int64) {
        seen[key] = max(seen[key] ?? until, until)
        if seen.count > Self.capacity, let soonest = seen.min(by: { $0.value < $1.value }) {
            seen.removeValue(forKey: soonest.key)
        }
    }

    /// The keys to keep across a restart, one line each: "sender,identifier,sent<TAB>forget
    /// at<TAB>shown" (CAP forbids commas and white space in senders and identifiers).
    public var exported: [String] {
        seen.sorted { $0.key.description < $1.key.description }
            .map { "\($0.key)\t\($0.value)\t\(active.contains($0.key) ? 1 : 0)" }
    }

    /// Takes back what `exported` wrote; lines that do not read are left out.
    public mutating func restore(_ lines: [String]) {
        for line in lines {
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let key = CapAlert.Key(reference: fields[0]), let until = Int64(fields[1]) else { continue }
            remember(key, until: until)
            if fields[2] == "1" { active.insert(key) }
        }
    }
}
