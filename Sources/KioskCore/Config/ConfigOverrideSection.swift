import Yams

/// `overrides:`, a map of names to {item | items | playlist | text, priority, duration, layers,
/// sound, sound_loop} (#35); `text` with its card's `color`, `background` and `size`.
/// Read after `playlists` and `layers`, whose names an override's `playlist` and `layers` are
/// checked against.
extension ConfigWalker {
    static let overrideKeys = ["item", "items", "playlist", "text", "color", "background", "size", "priority", "duration", "layers",
                               "sound", "sound_loop"]
    static let cardKeys = ["color", "background", "size"]

    func readOverrides(_ node: Node?, playlistNames: [String], layerNames: [String], baseDirectory: String,
                       fileSystem: any PlaylistFileSystem) -> [OverrideConfig] {
        guard let node, !isNull(node) else { return [] }
        guard let mapping = node.mapping else {
            report(node, "'overrides' is \(describe(node)); expected a map of names to what each plays, "
                   + "like evacuate: {item: 3, priority: 100}")
            return []
        }
        var overrides: [OverrideConfig] = []
        for (keyNode, value) in mapping {
            // A later copy of a duplicated name: already reported by the composer.
            if let mark = keyNode.mark, ignoredKeys.contains(TextPosition(mark)) { continue }
            guard let name = keyNode.scalar?.string, !isNull(keyNode), !name.isEmpty,
                  !name.contains(where: { $0.isWhitespace }) else {
                report(keyNode, "an override name is \(describe(keyNode)); expected a plain name without spaces, like evacuate")
                continue
            }
            let label = "override '\(name)'"
            guard let section = listedSection(value, label: label, allowedKeys: Self.overrideKeys) else { continue }
            let before = diagnostics.count
            guard ["item", "items", "playlist", "text", "command"].contains(where: { section[$0] != nil }) else {
                if !section.hasUntakenKeys {
                    report(value, "\(label) plays nothing; expected exactly one of item: N (the default playlist's entry, from 0), "
                           + "playlist: NAME, items: [files...] or text: \"words\" (a card kiosk draws)")
                }
                continue
            }
            let content = section["text"] != nil ? cardContent(section, label: label)
                : triggerContent(section, node: value, label: label, playlistNames: playlistNames,
                                 baseDirectory: baseDirectory, fileSystem: fileSystem)
            for key in Self.cardKeys where section["text"] == nil && section[key] != nil {
                report(section.keyNode(key), "'\(key)' in \(label) styles a text card; expected it with text: \"...\", or leave it out")
            }
            let priority = integer(section, "priority", in: -1_000_000...1_000_000)
            let duration = seconds(section, "duration")
            let layers = stringList(section, "layers", expected: "names of layers: kept up while it plays") ?? []
            for layer in layers where !layerNames.contains(layer) {
                report(section["layers"] ?? value, "'layers' in \(label) names '\(layer)', which layers: does not define; expected "
                       + (layerNames.isEmpty ? "a layer of layers:, which defines none" : "some of: " + layerNames.joined(separator: ", ")))
            }
            let sound = soundCue(section, label: label, baseDirectory: baseDirectory)
            guard diagnostics.count == before, let content else { continue }
            overrides.append(OverrideConfig(name: name, content: content, priority: priority ?? 0, duration: duration,
                                            layers: layers, sound: sound, location: location(of: keyNode)))
        }
        return overrides
    }
}

extension ConfigWalker {
    /// `sound: tone.wav` (relative to kiosk.conf's folder), heard over what the override plays,
    /// once or with `sound_loop: true` until it leaves the screen. Not looked for here: like an
    /// item's file it may arrive later (a content sync); a missing one is said when it is due.
    func soundCue(_ section: SectionMap, label: String, baseDirectory: String) -> SoundCue? {
        let loops = bool(section, "sound_loop")
        guard let path = string(section, "sound", expected: "the path of a sound file, like sound: tone.wav") else {
            if section["sound"] == nil, let key = section.keyNode("sound_loop") {
                report(key, "'sound_loop' in \(label) repeats its sound; expected it with sound: FILE, or leave it out")
            }
            return nil
        }
        return SoundCue(path: PathText.resolve(path, against: baseDirectory), loops: loops ?? false)
    }

    /// `text: "Use the east exit"` (with `color`, `background`, `size`): one card kiosk draws,
    /// and nothing else to play.
    func cardContent(_ section: SectionMap, label: String) -> TriggerConfig.Content? {
        if let other = ["item", "items", "playlist", "command"].first(where: { section[$0] != nil }) {
            let first = location(of: section.keyNode("text"))
            report(section.keyNode(other), "\(label) has both 'text' (at \(first.line):\(first.column)) and '\(other)'; "
                   + "expected exactly one: what the override plays")
            return nil
        }
        guard let card = textCard(section, label: label) else { return nil }
        return .items([ItemConfig(source: .card(card), location: location(of: section["text"]))])
    }
}

extension ConfigWalker {
    /// The card of a section's `text` (an override's or a playlist item's) with its `color`,
    /// `background` and `size`; nil, with the reason reported, when the words are missing, empty
    /// or too long.
    func textCard(_ section: SectionMap, label: String) -> TextCard? {
        guard let text = string(section, "text", expected: "the words the card shows, like text: \"Use the east exit\"") else {
            return nil
        }
        guard text.contains(where: { !$0.isWhitespace }) else {
            report(section["text"], "'text' in \(label) has no words; expected the words the card shows, like text: \"Use the east exit\"")
            return nil
        }
        guard text.count <= TextCard.maximumLength, text.utf8.count <= TextCard.maximumBytes else {
            report(section["text"], "'text' in \(label) is \(text.count) characters (\(text.utf8.count) bytes); expected at most "
                   + "\(TextCard.maximumLength) (\(TextCard.maximumBytes) bytes)")
            return nil
        }
        var card = TextCard(text: text)
        if let color = color(section, "color") { card.color = color }
        if let background = color(section, "background") { card.background = background }
        card.size = length(section, "size")
        return card
    }
}
