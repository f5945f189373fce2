import Foundation
import Yams

/// kiosk.conf's `layers` (model: `LayerConfig`): a list, each entry one kind (`clock`, `text`,
/// `image`) mapped to its settings. A missing image or text file is an error here (the
/// presenter would only skip it); a wrong colour, zone or position names its line and column.
extension ConfigWalker {
    static let layerKinds = ["clock", "text", "image", "ticker"]
    static let commonLayerKeys = ["name", "position", "margin", "opacity"]
    static let textLayerKeys = ["size", "color", "background"]
    static let layerKeys: [String: [String]] = [
        "clock": ["format", "timezone", "locale"] + commonLayerKeys + textLayerKeys,
        "text": ["text", "file"] + commonLayerKeys + textLayerKeys,
        "image": ["path", "width"] + commonLayerKeys,
        "ticker": ["text", "file", "feed", "refresh", "speed", "separator"] + commonLayerKeys + textLayerKeys,
    ]
    /// A ticker runs across the whole width: at the top, the bottom or the middle.
    static let tickerPositions: [LayerPosition] = [.bottom, .top, .center]

    func readLayers(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> [LayerConfig] {
        guard let node, !isNull(node) else { return [] }
        guard case .sequence(let entries) = node else {
            report(node, "layers is \(describe(node)); expected a list like - clock: {position: top-right}")
            return []
        }
        var layers: [LayerConfig] = []
        var names: [String: SourceLocation] = [:]
        for (index, entry) in entries.enumerated() {
            let label = "layer \(index + 1)"
            guard let pairs = entry.mapping, pairs.count == 1, let (kindNode, settings) = pairs.first,
                  let kind = kindNode.scalar?.string else {
                report(entry, "\(label) is \(describe(entry)); expected one of \(Self.layerKinds.joined(separator: ", ")) "
                       + "with its settings, like - clock: {format: \"HH:mm\"}")
                continue
            }
            guard let allowed = Self.layerKeys[kind] else {
                let hint = suggestion(for: kind, among: Self.layerKinds)
                report(kindNode, "\(label) is a '\(kind)'; expected one of \(Self.layerKinds.joined(separator: ", "))\(hint)")
                continue
            }
            let section = isNull(settings) ? SectionMap(name: "\(label) (\(kind))", node: settings)
                : self.section(settings, name: "\(label) (\(kind))", allowedKeys: allowed)
            guard let section else {
                report(settings, "\(label) (\(kind)) is \(describe(settings)); expected a map of \(allowed.joined(separator: ", "))")
                continue
            }
            guard let content = layerContent(kind, section, kindNode: kindNode, baseDirectory: baseDirectory,
                                             fileSystem: fileSystem) else { continue }
            var layer = LayerConfig(name: "\(kind)-\(index + 1)", content: content, location: location(of: kindNode))
            if kind == "image" { layer.position = .topLeft }
            if kind == "text" || kind == "ticker" { layer.position = .bottom }
            if let name = string(section, "name", expected: "a name for kiosk ctl layer") {
                if let earlier = names[name] {
                    report(section["name"], "layer name '\(name)' is used twice (first at \(earlier.line):\(earlier.column)); expected a name of its own")
                }
                layer.name = name
            }
            names[layer.name] = names[layer.name] ?? location(of: section["name"] ?? kindNode)
            let positions = LayerPosition.allCases.map { (name: $0.rawValue, value: $0) }
            if let position = choice(section, "position", positions) {
                if kind == "ticker", !Self.tickerPositions.contains(position) {
                    report(section["position"], "'position' in \(section.name) is \(position.rawValue); a ticker runs across the "
                           + "screen: expected one of: " + Self.tickerPositions.map(\.rawValue).joined(separator: ", "))
                } else {
                    layer.position = position
                }
            }
            if let margin = length(section, "margin") { layer.margin = margin }
            if let size = length(section, "size") { layer.size = size }
            if let color = color(section, "color") { layer.color = color }
            if let background = color(section, "background") { layer.background = background }
            if let opacity = number(section, "opacity", in: 0...1) { layer.opacity = opacity }
            layers.append(layer)
        }
        return layers
    }

    private func layerContent(_ kind: String, _ section: SectionMap, kindNode: Node, baseDirectory: String,
                              fileSystem: any PlaylistFileSystem) -> LayerConfig.Content? {
        switch kind {
        case "clock":
            let format = string(section, "format", expected: "a date pattern like HH:mm or EEE d MMM HH:mm") ?? "HH:mm"
            var zone: String? = nil
            if let name = string(section, "timezone", expected: "a time zone like Europe/Berlin") {
                if ClockText.knowsZone(name) { zone = name }
                else { report(section["timezone"], "timezone '\(name)' is not a time zone this system knows; expected a name like Europe/Berlin (see timedatectl list-timezones)"); return nil }
            }
            let locale = string(section, "locale", expected: "a locale like de_DE")
            return .clock(format: format, timeZone: zone, locale: locale)
        case "text":
            let text = string(section, "text", expected: "the line to show")
            let file = string(section, "file", expected: "the path of a text file")
            switch (text, file) {
            case (let text?, nil): return .text(text)
            case (nil, let file?):
                let path = PathText.resolve(file, against: baseDirectory)
                guard fileSystem.kind(ofItemAt: path) == .file else {
                    report(section["file"], "text file '\(path)' does not exist; expected the path of a text file")
                    return nil
                }
                return .textFile(path: path)
            case (.some, .some):
                report(section.keyNode("file"), "\(section.name) has both 'text' and 'file'; expected one of them")
            case (nil, nil):
                report(kindNode, "\(section.name) has no 'text' or 'file'; expected text: \"...\" or file: PATH")
            }
            return nil
        case "ticker":
            return tickerContent(section, kindNode: kindNode, baseDirectory: baseDirectory, fileSystem: fileSystem)
        default:
            guard let file = string(section, "path", expected: "the path of a picture (PNG, JPEG)") else {
                if section["path"] == nil { report(kindNode, "\(section.name) has no 'path'; expected path: logo.png") }
                return nil
            }
            let path = PathText.resolve(file, against: baseDirectory)
            guard fileSystem.kind(ofItemAt: path) == .file else {
                report(section["path"], "picture '\(path)' does not exist; expected the path of a PNG or JPEG file")
                return nil
            }
            return .image(path: path, width: length(section, "width"))
        }
    }

    private func tickerContent(_ section: SectionMap, kindNode: Node, baseDirectory: String,
                               fileSystem: any PlaylistFileSystem) -> LayerConfig.Content? {
        let speed = number(section, "speed", in: 1...5000) ?? 120
        let separator = section["separator"].flatMap { $0.scalar?.string } ?? "   •   "
        let text = string(section, "text", expected: "the text to run across")
        let file = string(section, "file", expected: "the path of a text file (a line an item)")
        let feed = string(section, "feed", expected: "the URL of an RSS or Atom feed")
        let given = [text, file, feed].compactMap { $0 }.count
        if given > 1 {
            report(kindNode, "\(section.name) has more than one of 'text', 'file', 'feed'; expected one of them")
            return nil
        }
        var refresh = MediaTime(value: 300, timescale: 1)
        if let value = seconds(section, "refresh") {
            if feed == nil, let key = section.keyNode("refresh") {
                report(key, "\(section.name) has 'refresh' but no 'feed'; expected refresh only with feed: URL")
                return nil
            }
            guard value.seconds >= 10 else {
                report(section["refresh"], "'refresh' in \(section.name) is \(value.seconds) s; expected 10 s or more (a feed is not a chat)")
                return nil
            }
            refresh = value
        }
        let source: LayerConfig.TickerSource
        if let text {
            source = .text(text)
        } else if let file {
            let path = PathText.resolve(file, against: baseDirectory)
            guard fileSystem.kind(ofItemAt: path) == .file else {
                report(section["file"], "text file '\(path)' does not exist; expected the path of a text file")
                return nil
            }
            source = .file(path: path)
        } else if let feed {
            guard let scheme = NetworkURL.scheme(of: feed), ["http", "https"].contains(scheme) else {
                report(section["feed"], "'feed' in \(section.name) is '\(feed)'; expected an http:// or https:// URL")
                return nil
            }
            source = .feed(url: feed, refresh: refresh)
        } else {
            if given == 0 && (section["text"] == nil && section["file"] == nil && section["feed"] == nil) {
                report(kindNode, "\(section.name) has no 'text', 'file' or 'feed'; expected one of them")
            }
            return nil
        }
        return .ticker(source, speed: speed, separator: separator)
    }

    func length(_ section: SectionMap, _ key: String) -> LayerLength? {
        guard let node = section[key] else { return nil }
        // A margin may be 0; a text's size or an image's width of 0 draws nothing (it passed
        // `kiosk check`, and the layer never showed).
        let mayBeZero = key == "margin"
        guard let text = node.scalar?.string, !isNull(node), let length = LayerLength(text: text),
              mayBeZero || (length != .pixels(0) && length != .percent(0)) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected pixels (48) or a percentage of the screen (5%)"
                   + (mayBeZero ? "" : " above 0"))
            return nil
        }
        return length
    }

    func color(_ section: SectionMap, _ key: String) -> LayerColor? {
        guard let node = section[key] else { return nil }
        guard let text = node.scalar?.string, !isNull(node), let color = LayerColor(text: text) else {
            report(node, "'\(key)' in \(section.name) is \(describe(node)); expected \(LayerColor.expected)")
            return nil
        }
        return color
    }
}
