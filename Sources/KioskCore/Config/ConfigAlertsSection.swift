import Yams

/// `alerts: {cap: {url, interval, areas, min_severity, min_urgency, default_duration, override,
/// text_layer}}` (#35). Read after `overrides` and `layers`, whose names it is checked against.
extension ConfigWalker {
    static let capKeys = ["url", "interval", "areas", "min_severity", "min_urgency", "default_duration", "override", "text_layer"]

    func readAlerts(_ node: Node?, overrides: [OverrideConfig], layerNames: [String]) -> CapFeedConfig? {
        guard let alerts = section(node, name: "alerts", allowedKeys: ["cap"]), let capNode = alerts["cap"] else { return nil }
        guard let cap = section(capNode, name: "alerts.cap", allowedKeys: Self.capKeys) else { return nil }
        let before = diagnostics.count
        let url = string(cap, "url", expected: "the feed's http(s) URL")
        if let url, let node = cap["url"], !(url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://")) {
            report(node, "'url' in alerts.cap is '\(url)'; expected an http:// or https:// URL of a CAP alert or feed")
        }
        if cap["url"] == nil && !cap.hasUntakenKeys {
            report(capNode, "alerts.cap has no 'url'; expected url: followed by the CAP feed's http(s) URL")
        }
        let interval = seconds(cap, "interval", above: MediaTime(value: 1, timescale: 1), allowingMinimum: true)
        let areas = stringList(cap, "areas", expected: "area names or geocodes, like [Berlin, \"006113\"]")
        let severity = choice(cap, "min_severity", CapAlert.Severity.allCases.map { ($0.rawValue, $0) })
        let urgency = choice(cap, "min_urgency", CapAlert.Urgency.allCases.map { ($0.rawValue, $0) })
        let duration = seconds(cap, "default_duration")
        let override = string(cap, "override", expected: "the name of an override of overrides:")
        if let override, let node = cap["override"], !overrides.contains(where: { $0.name == override }) {
            let names = overrides.map(\.name)
            report(node, "'override' in alerts.cap is '\(override)', which overrides: does not define; expected one of: "
                   + (names.isEmpty ? "(none: add one under overrides:)" : names.joined(separator: ", "))
                   + suggestion(for: override, among: names))
        }
        if cap["override"] == nil && !cap.hasUntakenKeys {
            report(capNode, "alerts.cap has no 'override'; expected override: followed by the override an alert shows")
        }
        let layer = string(cap, "text_layer", expected: "the name of a text layer of layers:")
        if let layer, let node = cap["text_layer"], !layerNames.contains(layer) {
            report(node, "'text_layer' in alerts.cap is '\(layer)', which layers: does not define; expected one of: "
                   + (layerNames.isEmpty ? "(none)" : layerNames.joined(separator: ", ")) + suggestion(for: layer, among: layerNames))
        }
        guard diagnostics.count == before, let url, let override else { return nil }
        var filter = CapAlertBook.Filter(areas: areas ?? [], minSeverity: severity ?? .unknown, minUrgency: urgency ?? .unknown)
        if let duration { filter.defaultDuration = Int64(duration.seconds.rounded(.up)) }
        return CapFeedConfig(url: url, interval: interval ?? MediaTime(value: 30, timescale: 1), filter: filter,
                             override: override, textLayer: layer)
    }
}
