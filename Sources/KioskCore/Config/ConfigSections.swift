import Yams

/// The sections of kiosk.conf besides `items`: each reads its map, reports what is wrong and
/// keeps the default for anything missing or invalid (so one parse reports every problem).
extension ConfigWalker {
    func readDisplay(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> DisplayConfig {
        var display = DisplayConfig()
        guard let section = section(node, name: "display", allowedKeys:
            Self.screenKeys + ["power", "power_control", "splash"])
        else { return display }
        readScreen(section, into: &display)
        display.power = powerWindows(section["power"])
        if let control = choice(section, "power_control", DisplayPowerControl.allCases.map { ($0.rawValue, $0) }) {
            display.powerControl = control
        }
        if let splash = string(section, "splash", expected: "none or the path of an image"), splash != "none" {
            let path = PathText.resolve(splash, against: baseDirectory)
            if fileSystem.kind(ofItemAt: path) == .file { display.splash = path }
            else { report(section["splash"], "splash image '\(path)' does not exist; expected none or the path of an image (PNG, JPEG)") }
        }
        return display
    }

    /// The keys that say which screen and how it is driven: `display`'s, and each of
    /// `displays.outputs`.
    static let screenKeys = ["output", "card", "connector", "mode", "rotation", "headless_size", "video_plane"]

    /// `screenKeys` of `section` (named in messages by its `name`: "display", "displays.outputs[2]").
    func readScreen(_ section: SectionMap, into display: inout DisplayConfig) {
        let owner = section.name
        if let output = choice(section, "output", DisplayConfig.Output.allCases.map { ($0.rawValue, $0) }) {
            display.output = output
        }
        if let card = string(section, "card", expected: "auto or a device path like /dev/dri/card0") {
            if card == "auto" { display.card = .auto }
            else if card.hasPrefix("/") { display.card = .path(card) }
            else { report(section["card"], "'card' in \(owner) is '\(card)'; expected auto or a device path like /dev/dri/card0") }
        }
        if let connector = string(section, "connector", expected: "auto or a connector name like HDMI-A-1") {
            display.connector = connector == "auto" ? .auto : .named(connector)
        }
        if let mode = string(section, "mode", expected: "preferred, WxH or WxH@HZ") {
            if let parsed = Self.parseMode(mode) { display.mode = parsed }
            else { report(section["mode"], "'mode' in \(owner) is '\(mode)'; expected preferred, WxH or WxH@HZ (like 1920x1080 or 1280x720@60)") }
        }
        if let node = section["rotation"] {
            if let degrees = node.int, node.scalar?.style == .plain, let rotation = Rotation(rawValue: degrees) {
                display.rotation = rotation
            } else {
                report(node, "'rotation' in \(owner) is \(describe(node)); expected one of: 0, 90, 180, 270")
            }
        }
        if let text = string(section, "headless_size", expected: "a size WxH like 1280x720") {
            if let size = PixelSize(parsing: text), size.width <= Self.largestFrameSide, size.height <= Self.largestFrameSide {
                display.headlessSize = size
            } else {
                report(section["headless_size"], "'headless_size' in \(owner) is '\(text)'; expected a size WxH like 1280x720 (sides 1-\(Self.largestFrameSide))")
            }
        }
        if let policy = choice(section, "video_plane", VideoPlanePolicy.allCases.map { ($0.rawValue, $0) }) {
            display.videoPlane = policy
        }
    }

    /// DRM's own limit on a framebuffer side; beyond it a size is a typo (the command line's
    /// `--size` and headless screens are held to the same one).
    static let largestFrameSide = DisplaySpec.largestSide

    /// The display's own mode syntax (`ModeRequest`), with a bound on the sides.
    static func parseMode(_ text: String) -> DisplayConfig.Mode? {
        guard !text.isEmpty else { return nil }
        let parsed: ModeRequest?
        do { parsed = try ModeRequest.parse(text) } catch { return nil }
        guard let request = parsed else { return .preferred }
        guard request.size.width <= largestFrameSide, request.size.height <= largestFrameSide else { return nil }
        return .exactly(request)
    }

    func readAudio(_ node: Node?) -> AudioConfig {
        var audio = AudioConfig()
        guard let section = section(node, name: "audio", allowedKeys: ["device", "volume", "muted"]) else { return audio }
        if let device = string(section, "device", expected: "none or an ALSA PCM name like default or hw:0,0") {
            audio.device = device == "none" ? .none : .pcm(device)
        }
        if let volume = integer(section, "volume", in: 0...100) { audio.volume = volume }
        if let muted = bool(section, "muted") { audio.muted = muted }
        return audio
    }

    func readInput(_ node: Node?) -> InputConfig {
        var input = InputConfig()
        guard let section = section(node, name: "input", allowedKeys:
            ["enabled", "devices", "grab", "seek_step", "gestures", "keys"]) else { return input }
        if let enabled = bool(section, "enabled") { input.enabled = enabled }
        if let grab = bool(section, "grab") { input.grab = grab }
        if let step = seconds(section, "seek_step") { input.seekStep = step }
        if let node = section["devices"] {
            if node.scalar?.string == "auto" { input.devices = .auto }
            else if let devices = stringList(section, "devices", expected: "/dev/input/eventN paths or device names") {
                if devices.isEmpty { report(node, "'devices' in input is an empty list; expected auto or at least one device") }
                else { input.devices = .listed(devices) }
            }
        }
        if let gestures = self.section(section["gestures"], name: "input.gestures",
                                       allowedKeys: ["tap", "swipe", "scrub", "double_tap"]) {
            if let value = bool(gestures, "tap") { input.gestures.tap = value }
            if let value = bool(gestures, "swipe") { input.gestures.swipe = value }
            if let value = bool(gestures, "scrub") { input.gestures.scrub = value }
            if let value = bool(gestures, "double_tap") { input.gestures.doubleTap = value }
        }
        input.keys = readKeys(section["keys"])
        return input
    }

    /// `input: keys:` over the defaults. Each key name must look like KEY_X or BTN_X, and a key
    /// may trigger one action only (counting the defaults that were not replaced).
    func readKeys(_ node: Node?) -> KeyMap {
        var bindings = KeyMap.defaultBindings
        guard let section = section(node, name: "input.keys", allowedKeys: KeyAction.allCases.map(\.rawValue)) else {
            return .defaults
        }
        var written: [(action: KeyAction, name: String, node: Node)] = []
        for action in KeyAction.allCases {
            guard let value = section[action.rawValue] else { continue }
            guard let elements = scalarOrList(value) else {
                report(value, "'\(action.rawValue)' in input.keys is \(describe(value)); expected a list of key names like [KEY_SPACE, BTN_LEFT]")
                continue
            }
            var names: [String] = []
            for element in elements {
                guard let name = element.scalar?.string, KeyMap.isKeyName(name) else {
                    let shown = element.scalar.map { "'\(quotedForMessage($0.string))'" } ?? describe(element)
                    report(element, "\(shown) in input.keys.\(action.rawValue) is not an evdev key name; "
                           + "expected a name like KEY_SPACE or BTN_LEFT (upper case, digits, _)")
                    continue
                }
                names.append(name)
                written.append((action, name, element))
            }
            bindings[action] = names
        }
        reportKeysBoundTwice(written, in: bindings)
        // Conflicts were reported above with their positions; the defaults stand in for an
        // invalid map, which the diagnostics keep from ever being used.
        return (try? KeyMap(bindings)) ?? .defaults
    }

    /// One diagnostic per key bound to several actions, at its first place in the file.
    private func reportKeysBoundTwice(_ written: [(action: KeyAction, name: String, node: Node)], in bindings: [KeyAction: [String]]) {
        let inFileOrder = written.sorted { a, b in
            (a.node.mark?.line ?? 0, a.node.mark?.column ?? 0) < (b.node.mark?.line ?? 0, b.node.mark?.column ?? 0)
        }
        var reported: Set<String> = []
        for binding in inFileOrder {
            let others = KeyAction.allCases.filter { $0 != binding.action && (bindings[$0] ?? []).contains(binding.name) }
            guard !others.isEmpty, reported.insert(binding.name).inserted else { continue }
            let writtenElsewhere = written.contains { $0.name == binding.name && $0.action != binding.action }
            report(binding.node, "\(binding.name) is bound to both \(binding.action.rawValue) and "
                   + others.map(\.rawValue).joined(separator: ", ") + (writtenElsewhere ? "" : " (a default)")
                   + "; expected one action per key (replace the other list, e.g. "
                   + others.map { "\($0.rawValue): []" }.joined(separator: ", ") + ")")
        }
    }

    func readPlayback(_ node: Node?) -> PlaybackConfig {
        var playback = PlaybackConfig()
        guard let section = section(node, name: "playback", allowedKeys:
            ["loop", "gravity", "start_paused", "rate", "image_duration", "stall_timeout", "resume", "settle", "region", "transition",
             "frame_memory", "hwdec", "decoder_threads", "deinterlace"]) else { return playback }
        if let loop = choice(section, "loop", PlaybackConfig.LoopMode.allCases.map { ($0.rawValue, $0) }) {
            playback.loop = loop
        }
        if let gravity = gravityChoice(section) { playback.gravity = gravity }
        if let paused = bool(section, "start_paused") { playback.startPaused = paused }
        if let rate = number(section, "rate", in: 0.25...4.0) { playback.rate = rate }
        if let duration = seconds(section, "image_duration") { playback.imageDuration = duration }
        if let timeout = seconds(section, "stall_timeout", above: StallGuard.shortestTimeout, allowingMinimum: true) {
            playback.stallTimeout = timeout
        }
        if let resume = choice(section, "resume", ResumeMode.allCases.map { ($0.rawValue, $0) }) { playback.resume = resume }
        if let settle = seconds(section, "settle", allowingMinimum: true) { playback.settle = settle }
        if let node = section["region"] { playback.region = readRegion(node) }
        if let transition = transition(section) { playback.transition = transition }
        if let hwdec = choice(section, "hwdec", HardwareDecoding.allCases.map { ($0.rawValue, $0) }) { playback.hwdec = hwdec }
        if let mode = choice(section, "deinterlace", Deinterlacing.allCases.map { ($0.rawValue, $0) }) { playback.deinterlace = mode }
        if let node = section["decoder_threads"] {
            if node.scalar?.string == "auto" {
                playback.decoderThreads = .auto
            } else if let count = node.int, node.scalar?.style == .plain, (1...DecoderThreads.most).contains(count) {
                playback.decoderThreads = .fixed(count)
            } else {
                report(node, "'decoder_threads' in playback is \(describe(node)); expected auto or a whole number from 1 to \(DecoderThreads.most)")
            }
        }
        if let bytes = byteSize(section, "frame_memory", atLeast: PlaybackConfig.smallestFrameMemory,
                                expected: "a size of at least 4M (like 32M, 64M or 1G): the decoded frames an item may queue") {
            playback.frameMemory = bytes
        }
        return playback
    }

    /// `[x, y, width, height]`, each pixels or a percentage of the screen's width (x, width)
    /// or height (y, height).
    private func readRegion(_ node: Node) -> ScreenRegion? {
        let expected = "expected [x, y, width, height] in pixels or percentages, like [0, 0, 75%, 100%]"
        guard case .sequence(let elements) = node, elements.count == 4 else {
            report(node, "'region' in playback is \(describe(node)); \(expected)")
            return nil
        }
        var lengths: [LayerLength] = []
        for element in elements {
            guard let text = element.scalar?.string, !isNull(element), let length = LayerLength(text: text) else {
                report(element, "an entry of 'region' in playback is \(describe(element)); \(expected)")
                return nil
            }
            lengths.append(length)
        }
        let region = ScreenRegion(x: lengths[0], y: lengths[1], width: lengths[2], height: lengths[3])
        if case .percent(let x) = region.x, case .percent(let w) = region.width, x + w > 100 {
            report(node, "'region' in playback reaches past the screen's right edge (\(x + w)%); \(expected)")
            return nil
        }
        if case .percent(let y) = region.y, case .percent(let h) = region.height, y + h > 100 {
            report(node, "'region' in playback reaches past the screen's bottom edge (\(y + h)%); \(expected)")
            return nil
        }
        return region
    }

    /// fit | fill | stretch, or AVFoundation's resizeAspect / resizeAspectFill / resize.
    func gravityChoice(_ section: SectionMap) -> VideoGravity? {
        choice(section, "gravity", VideoGravity.allCases.map { ($0.rawValue, $0) }, extraNames: VideoGravity.init(name:))
    }

    func readOverlay(_ node: Node?, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> OverlayConfig {
        var overlay = OverlayConfig()
        guard let section = section(node, name: "overlay", allowedKeys: ["enabled", "hide_after", "font"]) else { return overlay }
        if let enabled = bool(section, "enabled") { overlay.enabled = enabled }
        if let hideAfter = seconds(section, "hide_after") { overlay.hideAfter = hideAfter }
        if let node = section["font"] { overlay.font = readFont(node, baseDirectory: baseDirectory, fileSystem: fileSystem) ?? .auto }
        return overlay
    }

    /// `font`: auto, a path, or a list of those (the first, then fallbacks for what it lacks).
    /// One path must exist (as always); in a list a missing one is left to the font loader,
    /// which reports it in one line and uses the others.
    func readFont(_ node: Node, baseDirectory: String, fileSystem: any PlaylistFileSystem) -> OverlayConfig.Font? {
        let expected = "auto, the path of a TrueType font, or a list of those like [/path/a.ttf, auto]"
        if case .sequence(let sequence) = node {
            guard !sequence.isEmpty else { report(node, "'font' in overlay is an empty list; expected \(expected)"); return nil }
            var fonts: [OverlayConfig.Font] = []
            for element in sequence {
                guard let text = element.scalar?.string, !isNull(element), !text.isEmpty else {
                    report(element, "a font in the list of 'font' in overlay is \(describe(element)); expected auto or the path of a TrueType font")
                    continue
                }
                fonts.append(text == "auto" ? .auto : .file(PathText.resolve(text, against: baseDirectory)))
            }
            return fonts.isEmpty ? nil : .list(fonts)
        }
        guard let text = node.scalar?.string, !isNull(node), !text.isEmpty else {
            report(node, "'font' in overlay is \(describe(node)); expected \(expected)")
            return nil
        }
        if text == "auto" { return .auto }
        let path = PathText.resolve(text, against: baseDirectory)
        guard fileSystem.kind(ofItemAt: path) == .file else {
            report(node, "font file '\(path)' does not exist; expected auto or the path of a TrueType font")
            return nil
        }
        return .file(path)
    }

    func readControl(_ node: Node?, baseDirectory: String) -> ControlConfig {
        var control = ControlConfig()
        guard let section = section(node, name: "control", allowedKeys: ["socket", "time_interval"]) else { return control }
        if let socket = string(section, "socket", expected: "none or the path of a Unix socket") {
            control.socketPath = socket == "none" ? nil : PathText.resolve(socket, against: baseDirectory)
        }
        if let interval = seconds(section, "time_interval") { control.timeInterval = interval }
        return control
    }

    func readLogging(_ node: Node?, baseDirectory: String) -> LoggingConfig {
        var logging = LoggingConfig()
        guard let section = section(node, name: "logging", allowedKeys: ["proof_of_play", "proof_of_play_max"]) else {
            return logging
        }
        if let path = string(section, "proof_of_play", expected: "the path of a file for the plays") {
            logging.proofOfPlayPath = PathText.resolve(path, against: baseDirectory)
        }
        if let bytes = byteSize(section, "proof_of_play_max", atLeast: ByteSizeText.smallestRotationLimit,
                                expected: "a size of at least 4K (like 10M, 512K, 1G or a number of bytes)") {
            logging.proofOfPlayLimit = bytes
        }
        return logging
    }

    func readMetrics(_ node: Node?, baseDirectory: String) -> MetricsConfig {
        var metrics = MetricsConfig()
        guard let section = section(node, name: "metrics", allowedKeys: ["textfile", "interval", "listen"]) else { return metrics }
        let expected = "the path of a .prom file in node_exporter's textfile directory"
        if let path = string(section, "textfile", expected: expected) {
            // node_exporter reads only *.prom there: any other name would be written and never read.
            if path.hasSuffix(".prom") {
                metrics.textfile = PathText.resolve(path, against: baseDirectory)
            } else if let node = section["textfile"] {
                report(node, "'textfile' in metrics is '\(path)', which node_exporter would not read; expected \(expected)")
            }
        }
        if let interval = seconds(section, "interval", above: MediaTime(value: 1, timescale: 1), allowingMinimum: true) {
            if interval.seconds > 3600, let node = section["interval"] {
                report(node, "'interval' in metrics is \(describe(node)); expected seconds from 1 to 3600")
            } else {
                metrics.interval = interval
            }
        }
        let listen = "an address and port like 127.0.0.1:9477, [::1]:9477 or 0.0.0.0:9477 (the LAN)"
        if let text = string(section, "listen", expected: listen) {
            if let address = ListenAddress(parsing: text) { metrics.listen = address }
            else { report(section["listen"], "'listen' in metrics is '\(text)'; expected \(listen)") }
        }
        return metrics
    }
}
