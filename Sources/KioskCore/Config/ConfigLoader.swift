import Foundation
import Yams

/// Reads kiosk.conf (YAML) into a `KioskConfig`. Every problem of the file is reported at
/// once, each as `file:line:column: what was wrong; what was expected`. The tree is walked by
/// hand rather than decoded with Codable, because Codable drops the positions.
public enum ConfigLoader {
    public static let sectionNames = ["display", "audio", "input", "playback", "overlay", "control", "logging",
                                      "items", "playlists", "schedule", "triggers", "usb", "mqtt", "sync",
                                      "displays", "audio_track", "layers", "metrics", "overrides", "alerts", "web"]
    public static let itemKeys = ["path", "gravity", "volume", "muted", "start", "end", "loop", "duration", "title", "sync", "transition", "recursive", "transport", "latency", "fallback", "enabled"]
                                   + ["text"] + ConfigWalker.cardKeys

    /// Reads the file at `path`; relative paths inside resolve against its directory.
    /// `settingPageFileAside`: given, a web.page_file that cannot be read as the page's playlist
    /// does not fail the load; its errors go there and kiosk.conf's own playlist is the answer.
    public static func load(path: String, fileSystem: any PlaylistFileSystem = LocalFileSystem(),
                            settingPageFileAside: ((ConfigError) -> Void)? = nil) throws(ConfigError) -> KioskConfig {
        let fileLevel = { (message: String) in
            ConfigError(diagnostics: [ConfigDiagnostic(file: path, line: 0, column: 0, message: message)])
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = switch fileSystem.kind(ofItemAt: path) {
            case nil: "no such file"
            case .directory: "this is a directory"
            case .file: "cannot read it (permissions?)"
            }
            throw fileLevel("\(reason); expected a readable kiosk.conf")
        }
        return try load(contents: data, path: path, fileSystem: fileSystem, settingPageFileAside: settingPageFileAside)
    }

    /// Parses `contents`, read from `path` by the caller (live reload compares the bytes it
    /// read with the last ones, and must parse those same bytes, not a later write).
    public static func load(contents data: Data, path: String, fileSystem: any PlaylistFileSystem = LocalFileSystem(),
                            settingPageFileAside: ((ConfigError) -> Void)? = nil) throws(ConfigError) -> KioskConfig {
        guard let text = String(data: data, encoding: .utf8) else {
            let bad = firstInvalidUTF8(in: Array(data))
            throw ConfigError(diagnostics: [ConfigDiagnostic(
                file: path, line: bad.line, column: bad.column,
                message: "byte \(bad.byte) is not UTF-8 text; expected a YAML file saved as UTF-8")])
        }
        let absolute = PathText.resolve(path, against: FileManager.default.currentDirectoryPath)
        let directory = PathText.normalize(absolute + "/..")
        let config = try parse(text: text, fileName: path, baseDirectory: directory, fileSystem: fileSystem)
        // The web page's playlist (web.page_file), once the page has written one.
        guard let pageFile = config.web?.pageFile, let pageData = FileManager.default.contents(atPath: pageFile) else {
            return config
        }
        do throws(ConfigError) {
            return try PagePlaylist.merged(into: config, fileName: pageFile, text: String(decoding: pageData, as: UTF8.self),
                                           baseDirectory: directory, fileSystem: fileSystem)
        } catch {
            guard let settingPageFileAside else { throw error }
            settingPageFileAside(error)
            return config
        }
    }

    /// The 1-based line and column (in scalars, as libyaml counts) of the first byte that is
    /// not part of valid UTF-8, so an editor can jump to it.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> (line: Int, column: Int, byte: String) {
        var line = 1, column = 1, offset = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) {
            offset += UTF8.width(scalar)
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        let byte = offset < bytes.count ? "0x" + String(bytes[offset], radix: 16, uppercase: true) : "at the end"
        return (line, column, byte)
    }

    /// Parses config text; `fileName` names it in diagnostics, `baseDirectory` anchors
    /// relative paths (items, font, socket).
    public static func parse(text: String, fileName: String, baseDirectory: String,
                             fileSystem: any PlaylistFileSystem = LocalFileSystem()) throws(ConfigError) -> KioskConfig {
        let document = YAMLDocumentComposer.compose(text, fileName: fileName)
        let walker = ConfigWalker(fileName: fileName, ignoredKeys: document.ignoredKeys)
        var config = KioskConfig()
        if let root = document.root {
            config = walker.readRoot(root, baseDirectory: baseDirectory, fileSystem: fileSystem)
        } else if document.diagnostics.isEmpty {
            walker.report(nil, "no items: the file is empty; expected at least an 'items' list "
                          + "(files, directories, globs or URLs)")
        }
        // In file order; a syntax error leaves no tree, so it is never mixed with others.
        let diagnostics = (document.diagnostics + walker.diagnostics).enumerated().sorted { a, b in
            (a.element.line, a.element.column, a.offset) < (b.element.line, b.element.column, b.offset)
        }.map(\.element)
        guard diagnostics.isEmpty else { throw ConfigError(diagnostics: diagnostics) }
        return config
    }
}

extension ConfigWalker {
    func readRoot(_ root: Node, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> KioskConfig {
        var config = KioskConfig()
        guard root.mapping != nil else {
            report(root, "the file holds \(describe(root)); expected a map with the sections "
                   + ConfigLoader.sectionNames.joined(separator: ", "))
            return config
        }
        guard let top = section(root, name: "the file", allowedKeys: ConfigLoader.sectionNames) else { return config }
        config.display = readDisplay(top["display"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.audio = readAudio(top["audio"])
        config.input = readInput(top["input"])
        config.playback = readPlayback(top["playback"])
        syncDirectory = contentSyncDirectory(top["sync"], baseDirectory: baseDirectory)
        config.overlay = readOverlay(top["overlay"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.control = readControl(top["control"], baseDirectory: baseDirectory)
        config.logging = readLogging(top["logging"], baseDirectory: baseDirectory)
        config.metrics = readMetrics(top["metrics"], baseDirectory: baseDirectory)
        config.mqtt = readMQTT(top["mqtt"], baseDirectory: baseDirectory, fileSystem: fileSystem,
                               logsPlays: config.logging.proofOfPlayPath != nil)
        config.displays = readDisplays(top["displays"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        if config.displays != nil, let display = top.keyNode("display") {
            report(display, "'display' and 'displays' are both set; expected one of them "
                   + "(with several screens each of displays.outputs says which screen and how)")
        }
        // The default playlist is `items:` or `playlists.default:`, never both.
        let playlists = readPlaylists(top["playlists"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.playlists = playlists.named
        if let written = playlists.defaultPlaylist, top["items"] == nil {
            config.items = written.items
        } else if top["items"] == nil, config.displays?.everyOutputHasItems == true {
            // Separate screens that each name their playlist need no top-level one.
        } else {
            if let written = playlists.defaultPlaylist, let itemsKey = top.keyNode("items") {
                let items = location(of: itemsKey)
                report(written.key, "the default playlist is written twice: as 'playlists.default' here and as 'items' "
                       + "at \(items.line):\(items.column); expected only one of them ('items' is the playlist named default)")
            }
            config.items = readItems(top["items"], root: root, baseDirectory: baseDirectory, fileSystem: fileSystem)
        }
        config.schedule = readSchedule(top["schedule"], playlistNames: config.playlistNames,
                                       baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.triggers = readTriggers(top["triggers"], keys: config.input.keys, playlistNames: config.playlistNames,
                                       baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.layers = readLayers(top["layers"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.overrides = readOverrides(top["overrides"], playlistNames: config.playlistNames, layerNames: config.layers.map(\.name),
                                         baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.usb = readUsb(top["usb"], baseDirectory: baseDirectory)
        config.sync = readSync(top["sync"], playback: config.playback, baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.audioTrack = readMusicBed(top["audio_track"], baseDirectory: baseDirectory, fileSystem: fileSystem)
        config.alerts = readAlerts(top["alerts"], overrides: config.overrides, layerNames: config.layers.map(\.name))
        // An alert's words stay up while the override it puts on hides the other layers.
        if let cap = config.alerts, let layer = cap.textLayer,
           let index = config.overrides.firstIndex(where: { $0.name == cap.override }),
           !config.overrides[index].layers.contains(layer) {
            config.overrides[index].layers.append(layer)
        }
        // The layers whose text kiosk can set (`layer text`): web.splash_layer must be one.
        let textLayers = config.layers.filter { ["text", "ticker"].contains($0.content.kind) }.map(\.name)
        config.web = readWeb(top["web"], baseDirectory: baseDirectory, textLayerNames: textLayers)
        config.schedule.windowWarnings = warnings
        return config
    }

    func readItems(_ node: Node?, root: Node, baseDirectory: String,
                   fileSystem: any PlaylistFileSystem) -> [ItemConfig] {
        guard let node else {
            // "itmes:" was said as a near miss of 'items'; "no items" on top was a second line.
            if !misspelledKeys.contains("items") {
                report(root, "no items: there is no 'items' list (nor 'playlists.default'); expected \(Self.expectedItems)")
            }
            return []
        }
        return readItemList(node, listName: "items", baseDirectory: baseDirectory, fileSystem: fileSystem,
                            playlist: KioskConfig.defaultPlaylistName)
    }

    static let expectedItems = "at least one file, directory, glob or URL"

    /// A list of items: `items:`, or one of `playlists:` (`listName` "playlists.morning").
    /// `playlist`: the playlist the list is (`ItemConfig.playlist`), nil when none.
    func readItemList(_ node: Node, listName: String, baseDirectory: String,
                      fileSystem: any PlaylistFileSystem, playlist: String? = nil) -> [ItemConfig] {
        let expected = Self.expectedItems
        guard !isNull(node) else {
            report(node, "no items: '\(listName)' is empty; expected \(expected)")
            return []
        }
        guard case .sequence(let sequence) = node else {
            report(node, "'\(listName)' is \(describe(node)); expected a list (lines starting with '- ') of \(expected)")
            return []
        }
        if sequence.isEmpty { report(node, "no items: '\(listName)' is an empty list; expected \(expected)") }
        // Items of `items:` are "item 3" in messages, as they always were; others say their list.
        let owner = listName == "items" ? "" : " of \(listName)"
        var items: [ItemConfig] = []
        var disabled = 0
        for (index, element) in sequence.enumerated() {
            // `enabled: false` keeps an item written (the web page's list shows it) but unplayed.
            if element.mapping?["enabled"]?.bool == false {
                disabled += 1
                continue
            }
            if var item = readItem(element, name: "item \(index + 1)\(owner)", baseDirectory: baseDirectory,
                                   fileSystem: fileSystem) {
                item.playlist = playlist
                items.append(item)
            }
        }
        if disabled > 0, disabled == sequence.count {
            report(node, "no items: every item of '\(listName)' has enabled: false; expected at least one enabled")
        }
        return items
    }

    /// One item: "clips/" or {path: clips/a.mp4, gravity: fill, ...}; `name` ("item 3") says
    /// which in messages.
    func readItem(_ node: Node, name: String, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> ItemConfig? {
        let classify = { (text: String, node: Node?) in
            self.itemSource(text, at: node, in: name, baseDirectory: baseDirectory, fileSystem: fileSystem)
        }
        if let scalar = node.scalar, !isNull(node) {
            guard !scalar.string.isEmpty else {
                report(node, "\(name) is an empty string; expected a file, directory, glob or URL")
                return nil
            }
            return classify(scalar.string, node).map { ItemConfig(source: $0, location: location(of: node)) }
        }
        guard node.mapping != nil else {
            report(node, "\(name) is \(describe(node)); expected a path or a map with 'path' and options")
            return nil
        }
        guard let section = section(node, name: name, allowedKeys: ConfigLoader.itemKeys) else { return nil }
        var item = ItemConfig(source: .file(""), location: location(of: node))
        var valid = true
        if section["text"] != nil {
            // A card kiosk draws (#35), as an override's `text` is: a still of its own.
            if let other = ["path", "sync"].first(where: { section[$0] != nil }) {
                let first = location(of: section.keyNode("text"))
                report(section.keyNode(other), "\(name) has both 'text' (at \(first.line):\(first.column)) and '\(other)'; "
                       + "expected one of them")
                valid = false
            } else if let card = textCard(section, label: name) {
                item.source = .card(card)
                item.location = location(of: section["text"])
            } else {
                valid = false
            }
        } else if let styled = ConfigWalker.cardKeys.first(where: { section[$0] != nil }) {
            report(section.keyNode(styled), "'\(styled)' in \(name) styles a text card; expected it with text: \"...\", or leave it out")
            valid = false
        } else if let syncNode = section["sync"] {
            if section["path"] != nil {
                report(syncNode, "\(name) has both 'path' and 'sync'; expected one of them")
                valid = false
            } else if bool(section, "sync") == true {
                item.source = .synced(syncDirectory)
                item.location = location(of: syncNode)
            } else {
                if syncNode.bool == false {
                    report(syncNode, "'sync' in \(name) is false; expected true (the synced files), or leave the entry out")
                }
                valid = false
            }
        } else if section["path"] == nil {
            report(node, "\(name) has no 'path'; expected path: followed by a file, directory, glob or URL (or sync: true, "
                   + "or text: \"words\" for a card kiosk draws)")
            valid = false
        } else if let path = string(section, "path", expected: "a file, directory, glob or URL"),
                  let source = classify(path, section["path"]) {
            item.source = source
            item.location = location(of: section["path"])
        } else {
            valid = false
        }
        if bool(section, "recursive") == true {
            // A directory's subfolders too (`MediaTree`), as a USB stick plays; without it a
            // directory item is its top level, as documented.
            if case .directory(let path) = item.source {
                item.source = .tree(path)
            } else if section["text"] != nil {
                report(section["recursive"], "'recursive' in \(name) applies to a directory; a text card has no folders. "
                       + "Expected it on a directory item, or leave it out")
                valid = false
            } else if valid {
                let written = section["path"]?.scalar?.string ?? "\(item.source)"
                report(section["recursive"], "'recursive' in \(name) applies to a directory, and '\(written)' is not one; "
                       + "expected a directory path (ending in /)")
                valid = false
            }
        }
        item.gravity = gravityChoice(section)
        item.volume = integer(section, "volume", in: 0...100)
        item.muted = bool(section, "muted")
        item.start = seconds(section, "start", allowingMinimum: true)
        item.end = seconds(section, "end")
        if let start = item.start, let end = item.end, start >= end {
            report(section["end"], "'end' (\(section["end"]?.scalar?.string ?? "")) is not after 'start' "
                   + "(\(section["start"]?.scalar?.string ?? "")) in \(name); expected end > start")
        }
        item.loopCount = integer(section, "loop", in: 1...1_000_000, unit: " (plays in a row)") ?? 1
        item.duration = seconds(section, "duration")
        item.title = string(section, "title", expected: "the text the overlay shows")
        item.transition = transition(section)
        item.transport = choice(section, "transport", StreamTransport.allCases.map { ($0.rawValue, $0) })
        if item.transport != nil, !["rtsp", "rtsps"].contains(ItemSource.urlScheme(of: section["path"]?.scalar?.string ?? "") ?? "") {
            report(section["transport"], "'transport' in \(name) applies to rtsp:// items; expected it on one, or leave it out")
            valid = false
        }
        if let fallback = string(section, "fallback", expected: "the path of an image") {
            let path = PathText.resolve(fallback, against: baseDirectory)
            if fileSystem.kind(ofItemAt: path) == .file {
                item.fallback = path
            } else {
                report(section["fallback"], "fallback image '\(path)' in \(name) does not exist; expected the path of an image (PNG, JPEG)")
            }
        }
        _ = bool(section, "enabled")   // checked as a boolean; an enabled: false item is never read this far
        item.latency = seconds(section, "latency", allowingMinimum: true)
        if let latency = item.latency, latency > MediaTime(value: 10, timescale: 1) {
            report(section["latency"], "'latency' in \(name) is \(latency.seconds) s; expected at most 10 seconds")
            valid = false
        }
        return valid ? item : nil
    }
}
