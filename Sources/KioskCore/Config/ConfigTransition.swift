import Yams

/// `transition` in `playback` or in an item: `fade` (the kind, 0.8 s) or
/// `{type: crossfade, duration: 1.5}`.
extension ConfigWalker {
    func transition(_ section: SectionMap) -> Transition? {
        guard let node = section["transition"] else { return nil }
        let kinds = Transition.Kind.allCases.map { ($0.rawValue, $0) }
        if node.scalar != nil {
            return choice(section, "transition", kinds).map { Transition(kind: $0) }
        }
        let name = "'transition' in \(section.name)"
        guard let map = self.section(node, name: name, allowedKeys: ["type", "duration"]) else { return nil }
        guard map["type"] != nil else {
            report(node, "\(name) has no 'type'; expected type: followed by one of: "
                   + Transition.Kind.allCases.map(\.rawValue).joined(separator: ", "))
            return nil
        }
        // The type and the duration are each checked, so `kiosk check` lists both errors at once.
        let kind = choice(map, "type", kinds)
        var duration: MediaTime?
        var durationIsWrong = false
        if let durationNode = map["duration"] {
            // One range, one message: 0 and -1 are outside it as 20 is.
            if let scalar = durationNode.scalar, !isNull(durationNode), let value = SecondsText.parse(scalar.string),
               value >= Transition.shortest, value <= Transition.longest {
                duration = value
            } else {
                report(durationNode, "'duration' in \(name) is \(describe(durationNode)); expected seconds from "
                       + "\(formatted(Transition.shortest.seconds)) to \(formatted(Transition.longest.seconds))")
                durationIsWrong = true
            }
        }
        guard let kind, !durationIsWrong else { return nil }
        var transition = Transition(kind: kind)
        if let duration { transition.duration = duration }
        return transition
    }
}
