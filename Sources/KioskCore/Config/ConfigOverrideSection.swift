import Yams

/// `overrides:`, a map of names to {item | items | playlist, priority, duration, layers} (#35).
/// Read after `playlists` and `layers`, whose names an override's `playlist` and `layers` are
/// checked against.
extension ConfigWalker {
    static let overrideKeys = ["item", "items", "playlist", "priority", "duration", "layers"]

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
            let content = triggerContent(section, node: value, label: label, playlistNames: playlistNames,
                                         baseDirectory: baseDirectory, fileSystem: fileSystem)
            let priority = integer(section, "priority", in: -1_000_000...1_000_000)
            let duration = seconds(section, "duration")
            let layers = stringList(section, "layers", expected: "names of layers: kept up while it plays") ?? []
            for layer in layers where !layerNames.contains(layer) {
                report(section["layers"] ?? value, "'layers' in \(label) names '\(layer)', which layers: does not define; expected "
                       + (layerNames.isEmpty ? "a layer of layers:, which defines none" : "some of: " + layerNames.joined(separator: ", ")))
            }
            guard diagnostics.count == before, let content else { continue }
            overrides.append(OverrideConfig(name: name, content: content, priority: priority ?? 0, duration: duration,
                                            layers: layers, location: location(of: keyNode)))
        }
        return overrides
    }
}
