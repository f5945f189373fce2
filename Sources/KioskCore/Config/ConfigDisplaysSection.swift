import Yams

/// `displays:` several screens. Either a map (`layout`, `outputs`, `audio_from`, `grid`,
/// `bezel`), or a bare list of outputs: the same as `{layout: separate, outputs: [...]}`.
extension ConfigWalker {
    static let displaysKeys = ["layout", "outputs", "audio_from", "grid", "bezel"]
    static let outputKeys = ["name"] + screenKeys + ["gravity", "items"]

    func readDisplays(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> DisplaysConfig? {
        guard let node, !isNull(node) else { return nil }
        var displays = DisplaysConfig()
        let outputsNode: Node?
        var section: SectionMap?
        if case .sequence = node {
            outputsNode = node
        } else {
            guard let map = self.section(node, name: "displays", allowedKeys: Self.displaysKeys) else { return nil }
            section = map
            if let layout = choice(map, "layout", DisplaysConfig.Layout.allCases.map { ($0.rawValue, $0) }) {
                displays.layout = layout
            }
            outputsNode = map["outputs"]
            if outputsNode == nil {
                report(node, "displays has no 'outputs'; expected outputs: followed by a list of screens "
                       + "(each a map of \(Self.outputKeys.joined(separator: ", ")))")
            }
        }
        if let outputsNode { displays.outputs = readOutputs(outputsNode, layout: displays.layout,
                                                             baseDirectory: baseDirectory, fileSystem: fileSystem) }
        if let section { readLayoutKeys(section, into: &displays) }
        return displays
    }

    private func readOutputs(_ node: Node, layout: DisplaysConfig.Layout, baseDirectory: String,
                             fileSystem: any PlaylistFileSystem) -> [DisplayOutputConfig] {
        guard case .sequence(let sequence) = node, !sequence.isEmpty else {
            report(node, "'outputs' in displays is \(describe(node)); expected a list of screens (lines starting with '- ')")
            return []
        }
        var outputs: [DisplayOutputConfig] = []
        var names: [String: Node] = [:]
        for (index, element) in sequence.enumerated() {
            let label = "displays.outputs[\(index + 1)]"
            var output = DisplayOutputConfig(name: "display-\(index + 1)")
            if let text = element.scalar?.string, !isNull(element) {
                // `--display`'s text: a screen with no playlist of its own, and a headless
                // one with its refresh rate (headless:WxH@HZ[:vblank]).
                if let target = DisplaySpec(parsing: text) { output.target = target; outputs.append(output) }
                else { report(element, "\(label) is '\(text)'; expected a map of \(Self.outputKeys.joined(separator: ", ")) "
                              + "or a display like headless:640x360@60 or drm:card0:HDMI-A-1:1920x1080") }
                continue
            }
            guard let section = listedSection(element, label: label, allowedKeys: Self.outputKeys) else { continue }
            if let name = string(section, "name", expected: "a name for the screen, like left") {
                if let first = names[name] {
                    let at = location(of: first)
                    report(section["name"], "the name '\(name)' in \(label) is already used at \(at.line):\(at.column); "
                           + "expected a name of its own for each screen")
                }
                names[name] = section["name"]
                output.name = name
            }
            readScreen(section, into: &output.display)
            output.gravity = gravityChoice(section)
            if let items = section["items"] {
                output.items = readItemList(items, listName: "\(label).items", baseDirectory: baseDirectory,
                                            fileSystem: fileSystem)
            }
            if layout != .separate {
                for key in ["items", "gravity"] { if let key = section.keyNode(key) {
                    report(key, "'\(key.scalar?.string ?? "")' in \(label) is for layout separate; expected none here: "
                           + "a \(layout.rawValue) plays the top-level items with playback.gravity")
                } }
            }
            outputs.append(output)
        }
        return outputs
    }

    /// `audio_from`, `grid`, `bezel`: each only where its layout uses it.
    private func readLayoutKeys(_ section: SectionMap, into displays: inout DisplaysConfig) {
        if let name = string(section, "audio_from", expected: "the name of one of the outputs") {
            let names = displays.outputs.map(\.name)
            if displays.layout != .separate {
                report(section["audio_from"], "'audio_from' in displays is for layout separate; expected none here: "
                       + "a \(displays.layout.rawValue) plays one playlist, and its sound")
            } else if !names.contains(name) {
                report(section["audio_from"], "'audio_from' in displays is '\(name)'; expected the name of an output: "
                       + names.joined(separator: ", ") + suggestion(for: name, among: names))
            } else {
                displays.audioFrom = name
            }
        }
        for key in ["grid", "bezel"] where displays.layout != .span {
            if let keyNode = section.keyNode(key) {
                report(keyNode, "'\(key)' in displays is for layout span; expected none with layout \(displays.layout.rawValue)")
            }
        }
        guard displays.layout == .span else { return }
        displays.grid = GridSize(columns: max(displays.outputs.count, 1), rows: 1)
        if let text = string(section, "grid", expected: "columns x rows like 2x1") {
            if let grid = GridSize(parsing: text) {
                displays.grid = grid
                if grid.count != displays.outputs.count {
                    report(section["grid"], "'grid' in displays is \(grid) (\(grid.count) screens) but there are "
                           + "\(displays.outputs.count) outputs; expected columns x rows = the number of outputs")
                }
            } else {
                report(section["grid"], "'grid' in displays is '\(text)'; expected columns x rows like 2x1 (1-16 each)")
            }
        }
        if let bezel = integer(section, "bezel", in: 0...10_000, unit: " (pixels between neighbouring screens)") {
            displays.bezel = bezel
        }
    }
}
