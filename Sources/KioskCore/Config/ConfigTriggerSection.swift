import Foundation
import Yams

/// `triggers:`, a list of {name, key, zone, gpio, item | items | playlist, then, during_trigger}.
/// Read after `input` and `playlists`: a trigger's key is checked against the keys input.keys
/// binds, its playlist against the ones the file defines.
extension ConfigWalker {
    static let triggerKeys = ["name", "key", "zone", "gpio", "item", "items", "playlist", "command", "then", "during_trigger"]

    func readTriggers(_ node: Node?, keys: KeyMap, playlistNames: [String], baseDirectory: String,
                      fileSystem: any PlaylistFileSystem) -> [TriggerConfig] {
        guard let node, !isNull(node) else { return [] }
        guard case .sequence(let sequence) = node else {
            report(node, "'triggers' is \(describe(node)); expected a list (lines starting with '- ') of triggers, "
                   + "like - {name: welcome, key: KEY_F1, item: 0}")
            return []
        }
        var triggers: [TriggerConfig] = []
        var namesAt: [String: SourceLocation] = [:]
        var keysAt: [String: (trigger: String, at: SourceLocation)] = [:]
        var gpioLinesAt: [String: (trigger: String, at: SourceLocation)] = [:]
        for (index, element) in sequence.enumerated() {
            guard let trigger = readTrigger(element, number: index + 1, keys: keys, playlistNames: playlistNames,
                                            baseDirectory: baseDirectory, fileSystem: fileSystem) else { continue }
            if let first = namesAt[trigger.name] {
                report(element, "trigger name '\(trigger.name)' is used twice (first at \(first.line):\(first.column)); "
                       + "expected a name of its own for each trigger (kiosk ctl trigger NAME picks one)")
                continue
            }
            namesAt[trigger.name] = trigger.location
            var clash = false
            for key in trigger.keys {
                if let other = keysAt[key] {
                    report(element, "\(key) fires both trigger '\(other.trigger)' (at \(other.at.line):\(other.at.column)) "
                           + "and trigger '\(trigger.name)'; expected each key in one trigger")
                    clash = true
                }
                keysAt[key] = (trigger.name, trigger.location)
            }
            // One line, one trigger: a second request of a line the first holds would be refused.
            if let gpio = trigger.gpio {
                if let other = gpioLinesAt[gpio.description] {
                    report(element, "\(gpio) fires both trigger '\(other.trigger)' (at \(other.at.line):\(other.at.column)) "
                           + "and trigger '\(trigger.name)'; expected each GPIO line in one trigger")
                    clash = true
                }
                gpioLinesAt[gpio.description] = (trigger.name, trigger.location)
            }
            if !clash { triggers.append(trigger) }
        }
        return triggers
    }

    private func readTrigger(_ node: Node, number: Int, keys: KeyMap, playlistNames: [String], baseDirectory: String,
                             fileSystem: any PlaylistFileSystem) -> TriggerConfig? {
        let label = "trigger \(number)"
        guard let section = listedSection(node, label: label, allowedKeys: Self.triggerKeys) else { return nil }
        let before = diagnostics.count
        if section["name"] == nil && !section.hasUntakenKeys {
            report(node, "\(label) has no 'name'; expected name: followed by a word for logs and `kiosk ctl trigger NAME`")
        }
        let name = string(section, "name", expected: "the trigger's name")
        let boundKeys = triggerKeys(section, keys: keys, name: name ?? label)
        let zone = section["zone"].flatMap { zoneValue($0, of: name ?? label) }
        let gpio = section["gpio"].flatMap { gpioLine($0, label: label) }
        let content = triggerContent(section, node: node, label: name.map { "trigger '\($0)'" } ?? label,
                                     playlistNames: playlistNames, baseDirectory: baseDirectory, fileSystem: fileSystem)
        let then = choice(section, "then", TriggerPlay.Return.allCases.map { ($0.rawValue, $0) })
        let overlap = choice(section, "during_trigger", TriggerPlay.Overlap.allCases.map { ($0.rawValue, $0) })
        guard diagnostics.count == before, let name, let content else { return nil }
        return TriggerConfig(name: name, keys: boundKeys, zone: zone, gpio: gpio, content: content, then: then ?? .resume,
                             duringTrigger: overlap ?? .replace, location: location(of: node))
    }

    /// `key: KEY_F1` or `key: [KEY_F1, BTN_0]`. A key input.keys binds in the file is an error;
    /// one bound only by default is taken over by the trigger (README, "Triggers").
    private func triggerKeys(_ section: SectionMap, keys: KeyMap, name: String) -> [String] {
        guard let node = section["key"] else { return [] }
        guard let elements = scalarOrList(node) else {
            report(node, "'key' in \(section.name) is \(describe(node)); expected a key name like KEY_F1 or a list of them")
            return []
        }
        var names: [String] = []
        for element in elements {
            guard let key = element.scalar?.string, KeyMap.isKeyName(key) else {
                let shown = element.scalar.map { "'\($0.string)'" } ?? describe(element)
                report(element, "\(shown) in \(section.name).key is not an evdev key name; expected a name like "
                       + "KEY_F1 or BTN_0 (upper case, digits, _; a Raspberry Pi's gpio-key button is the keycode it is given)")
                continue
            }
            if let action = keys.action(forKey: key), keys[action] != KeyMap.defaultBindings[action] ?? [] {
                report(element, "\(key) is bound to both trigger '\(name)' and input.keys.\(action.rawValue); expected "
                       + "one of them (a trigger's key takes over only a default binding)")
                continue
            }
            if !names.contains(key) { names.append(key) }
        }
        return names
    }

    /// `zone: [x, y, w, h]`: pixels (numbers) or percent of the screen ("10%").
    private func zoneValue(_ node: Node, of name: String) -> TouchZone? {
        let expected = "expected [x, y, width, height] in pixels (like [0, 0, 200, 100]) or percent of the screen "
            + "(like [\"80%\", \"0%\", \"20%\", \"20%\"])"
        guard case .sequence(let sequence) = node, sequence.count == 4 else {
            report(node, "'zone' of trigger '\(name)' is \(describe(node))\(node.sequence.map { " of \($0.count)" } ?? ""); \(expected)")
            return nil
        }
        let sides = ["x", "y", "width", "height"]
        var lengths: [TouchZone.Length] = []
        for (side, element) in zip(sides, sequence) {
            // A corner may sit at 0; a side of no length could never be hit.
            let isExtent = side == "width" || side == "height"
            guard let length = zoneLength(element), isExtent ? length.value > 0 : length.value >= 0 else {
                let bound = isExtent ? "more than 0" : "0 or more"
                report(element, "\(side) in the zone of trigger '\(name)' is \(describe(element)); expected \(bound) pixels "
                       + "or percent (0% to 100%)")
                return nil
            }
            lengths.append(length)
        }
        let zone = TouchZone(x: lengths[0], y: lengths[1], width: lengths[2], height: lengths[3])
        for (start, extent, axis) in [(zone.x, zone.width, "width"), (zone.y, zone.height, "height")] {
            if case .percent(let a) = start, case .percent(let b) = extent, a + b > 100 {
                report(node, "the zone of trigger '\(name)', \(zone), reaches past the screen's \(axis) (\(TouchZone.Length.percent(a + b))); "
                       + "expected the zone inside the screen")
                return nil
            }
        }
        return zone
    }

    /// One side: a number of pixels, or "N%" with N from 0 to 100.
    private func zoneLength(_ node: Node) -> TouchZone.Length? {
        guard let text = node.scalar?.string, !isNull(node) else { return nil }
        if text.hasSuffix("%") {
            guard let value = Double(text.dropLast().trimmingCharacters(in: .whitespaces)), value.isFinite,
                  (0...100).contains(value) else { return nil }
            return .percent(value)
        }
        guard node.scalar?.style == .plain, let value = Double(text), value.isFinite,
              value <= Double(Self.largestFrameSide) else { return nil }
        return .pixels(value)
    }

    /// Exactly one of `item`, `items`, `playlist`, `command`.
    func triggerContent(_ section: SectionMap, node: Node, label: String, playlistNames: [String],
                                baseDirectory: String, fileSystem: any PlaylistFileSystem) -> TriggerConfig.Content? {
        let written = ["item", "items", "playlist", "command"].filter { section[$0] != nil }
        guard written.count == 1 else {
            if written.count > 1 {
                let first = location(of: section.keyNode(written[0]))
                report(section.keyNode(written[1]), "\(label) has both '\(written[0])' (at \(first.line):\(first.column)) "
                       + "and '\(written[1])'; expected exactly one: what the trigger plays")
            } else if !section.hasUntakenKeys {
                report(node, "\(label) plays nothing; expected exactly one of item: N (the default playlist's entry, "
                       + "from 0), playlist: NAME (one of: \(playlistNames.joined(separator: ", "))), items: [files...] "
                       + "or command: [word, arguments...] (a control command)")
            }
            return nil
        }
        switch written[0] {
        case "item":
            return integer(section, "item", in: 0...1_000_000, unit: " (the default playlist's entry, counted from 0)")
                .map(TriggerConfig.Content.item)
        case "playlist":
            return playlistReference(section, "playlist", playlistNames: playlistNames).map(TriggerConfig.Content.playlist)
        case "command":
            return triggerCommand(section["command"]!, label: label)
        default:
            let before = diagnostics.count
            let items = readItemList(section["items"]!, listName: "\(label) items", baseDirectory: baseDirectory,
                                     fileSystem: fileSystem)
            return diagnostics.count == before ? .items(items) : nil
        }
    }
}

extension ConfigWalker {
    /// `command: sync_now` or `command: [goto, 2]`: a row of the control command table, its
    /// arguments checked as the socket checks them. Not `trigger` (a trigger firing triggers
    /// could go round forever), nor what needs a socket connection (`observe`, `unobserve`).
    func triggerCommand(_ node: Node, label: String) -> TriggerConfig.Content? {
        let elements = scalarOrList(node) ?? []
        let words = elements.compactMap { $0.scalar?.string }
        guard !words.isEmpty, words.count == elements.count else {
            report(node, "'command' of \(label) is \(describe(node)); expected a command word and its arguments, "
                   + "like command: sync_now or command: [goto, 2]")
            return nil
        }
        let name = words[0]
        if ["trigger", "observe", "unobserve"].contains(name) {
            report(node, "'command' of \(label) is '\(name)', which a trigger cannot run; expected another command of "
                   + "`kiosk ctl commands`")
            return nil
        }
        do {
            _ = try ControlCommandTable.parse(name, words.dropFirst().map { .string($0) })
        } catch {
            report(node, "'command' of \(label): \(error.description)")
            return nil
        }
        return .command(words)
    }
}

private extension TouchZone.Length {
    var value: Double {
        switch self {
        case .pixels(let value), .percent(let value): value
        }
    }
}
