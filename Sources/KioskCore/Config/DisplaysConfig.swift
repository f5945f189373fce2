/// `displays`: several screens on one box, one process and one clock. Absent (nil in
/// `KioskConfig`), the single `display` section is the screen, as it always was.
public struct DisplaysConfig: Sendable, Equatable {
    /// How the screens share the picture.
    public enum Layout: String, Sendable, CaseIterable {
        /// Each screen plays its own playlist (`items` of its output), with its own engine.
        case separate
        /// One playlist (top-level `items`); every screen shows the same picture, fitted to it.
        case mirror
        /// One playlist; the picture is cut across the screens laid out in `grid`.
        case span
    }

    /// `layout`: separate | mirror | span.
    public var layout: Layout = .separate
    /// `outputs`: the screens, in order (for span: row by row, left to right).
    public var outputs: [DisplayOutputConfig] = []
    /// `audio_from`: the output whose items give sound (separate); the others decode video only.
    /// nil: the first output. Mirror and span have one playlist and so one sound.
    public var audioFrom: String?
    /// `grid`: columns x rows of a span, e.g. 2x1; columns x rows must equal the outputs' count.
    public var grid = GridSize(columns: 1, rows: 1)
    /// `bezel`: pixels of the picture hidden between neighbouring screens of a span (the frames
    /// of the panels), so a line crossing them stays straight.
    public var bezel = 0

    public init() {}

    /// The output that gives sound: `audio_from`, or the first.
    public var audioOutputIndex: Int {
        audioFrom.flatMap { name in outputs.firstIndex { $0.name == name } } ?? 0
    }
}

/// One screen of `displays.outputs`: the keys of `display` (card, connector, mode, rotation,
/// output, headless_size, video_plane), a name, and for `separate` its playlist and gravity.
public struct DisplayOutputConfig: Sendable, Equatable {
    /// `name`: how the log, the stats file and `audio_from` call it; default "display-N".
    public var name: String
    /// The screen itself, read with the single `display` section's keys and rules.
    public var display = DisplayConfig()
    /// An entry written as `--display` text (`headless:640x360@30`, `drm:card0:HDMI-A-2`):
    /// the screen it names, over `display` (as `--display` is over kiosk.conf's).
    public var target: DisplaySpec?
    /// `gravity`: this screen's default gravity (separate); nil: `playback.gravity`.
    public var gravity: VideoGravity?
    /// `items`: this screen's playlist (separate only; mirror and span play the top-level one).
    public var items: [ItemConfig] = []

    public init(name: String) { self.name = name }
}

extension DisplaysConfig {
    /// A separate layout's screens other than the main one (`audio_from`'s), which their own
    /// engines play and a reload does not reach; none for mirror and span (one engine).
    /// Compared as they read anywhere in the file: an item added above them moves their lines.
    public var otherScreens: [DisplayOutputConfig] {
        guard layout == .separate else { return [] }
        return outputs.enumerated().filter { $0.offset != audioOutputIndex }.map { _, output in
            var screen = output
            screen.items = output.items.map(\.withoutLocation)
            return screen
        }
    }

    /// Separate screens that all have their own playlist.
    public var everyOutputHasItems: Bool {
        layout == .separate && !outputs.isEmpty && outputs.allSatisfy { !$0.items.isEmpty }
    }
}

extension KioskConfig {
    /// The configuration of the engine that drives output `index` of a separate layout, as if
    /// kiosk.conf had a single `display`: its screen, its playlist (or the top-level one), its
    /// gravity. Everything else (playback, overlay, control, schedule) is the file's; the
    /// caller turns the sound off for the screens `audio_from` does not name.
    public func separateScreen(_ index: Int) -> KioskConfig {
        guard let displays, displays.outputs.indices.contains(index) else { return self }
        let output = displays.outputs[index]
        var screen = self
        screen.displays = nil
        screen.display = output.display
        if !output.items.isEmpty { screen.items = output.items }
        if let gravity = output.gravity { screen.playback.gravity = gravity }
        return screen
    }
}

extension KioskConfig {
    /// What the main engine plays by (the one the control socket, input, the schedule, proof
    /// of play and reloads act on): with separate screens the one `audio_from` names, as a
    /// single-display configuration; otherwise the file as it is.
    public var primaryScreen: KioskConfig {
        guard let displays, displays.layout == .separate else { return self }
        return separateScreen(displays.audioOutputIndex)
    }
}
