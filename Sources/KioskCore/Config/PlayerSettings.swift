import Foundation

/// Everything a kiosk plays by: kiosk.conf's sections with the command line's overrides
/// applied, made once by `init(config:overrides:)`. `kiosk run` makes it from the file, `kiosk
/// play` from a configuration its flags describe; the engine, the display opener, input and the
/// control socket all read this one value. A reload makes a whole new one and hands it over
/// (`SettingsReload` says what of it a running player takes).
///
/// A new kiosk.conf key is a field of its section (KioskConfig.swift), its parsing
/// (ConfigSections.swift) and, when a reload should name it, `ConfigChanges`: the value reaches
/// the engine through here with no mapping code (README, "Where to add what").
public struct PlayerSettings: Sendable, Equatable {
    /// The screen to open, once, at start.
    public var display = DisplaySettings()
    /// The sound device (opened at start), the volume and mute (live).
    public var audio = AudioConfig()
    public var input = InputConfig()
    public var playback = PlaybackConfig()
    /// The on-screen display and the idle screen's font; nil draws neither, the idle screen
    /// plain black (tests and benchmarks: a kiosk.conf always has an overlay section).
    public var overlay: OverlayConfig?
    /// kiosk.conf `layers`, drawn over every picture.
    public var layers: [LayerConfig] = []
    public var control = ControlConfig()
    /// Which playlist plays when, timed inserts and when the screen is on (`schedule:`,
    /// `display.power`); empty rules: the default playlist, the screen always on.
    public var schedule = ScheduleSettings()
    /// `sync`: the playlist follows a timeline shared by every box (`SyncTimeline`).
    public var sync = SyncConfig()
    /// `audio_track`: the music bed, its files expanded at start (`MusicBedSettings`); nil
    /// without one. Taken on restart only.
    public var musicBed: MusicBedSettings?

    // Of this run only: the command line sets them, kiosk.conf has no key for them.

    /// `--stats-file`: one JSON line per presented frame.
    public var statsPath: String?
    /// The screen's name with several screens (`displays.outputs[].name`): stats lines and the
    /// log say which screen; nil with one.
    public var displayName: String?
    /// `--untimed`: present every frame as soon as it is decoded, ignoring the clock (soak
    /// tests, benchmarks); a headless display then flips at once.
    public var untimed = false
    /// `--snapshots`: where to save what the screen shows as PNGs (a headless preview).
    public var snapshotDirectory: String?
    /// `--snapshot-every`.
    public var snapshotInterval = MediaTime(value: 3, timescale: 1)
    /// End playback when `loop: none` played its last item (`kiosk play`); a kiosk service
    /// instead keeps the last frame on screen.
    public var exitWhenFinished = false
    /// Decoder threads per item instead of `playback.decoder_threads` (`kiosk bench --threads`).
    public var decoderThreads: DecoderThreads?
    /// How long before an item ends the next one is opened and its first frame decoded.
    public var prepareAhead = MediaTime(value: 3, timescale: 1)

    /// The engine's defaults: no overlay, no control socket, nothing recorded.
    public init() {}

    /// kiosk.conf's settings with the command line's over them: the one mapping from a
    /// configuration to what plays.
    public init(config: KioskConfig, overrides: SettingsOverrides = SettingsOverrides()) {
        display = DisplaySettings(config.display, override: overrides.display)
        audio = config.audio
        if let device = overrides.audioDevice { audio.device = device }
        input = config.input
        playback = config.playback
        overlay = config.overlay
        layers = config.layers
        control = config.control
        schedule = ScheduleSettings(config)
        sync = config.sync
        musicBed = config.audioTrack.map { MusicBedSettings($0) }
        if let socket = overrides.controlSocket { control.socketPath = socket }
        statsPath = overrides.statsPath
        untimed = overrides.untimed
        snapshotDirectory = overrides.snapshotDirectory
        if let interval = overrides.snapshotInterval { snapshotInterval = interval }
        exitWhenFinished = overrides.exitWhenFinished
    }

    /// The periodic time events' interval; nil without a control socket (they are only sent
    /// to its clients).
    public var timeEventInterval: MediaTime? { control.socketPath == nil ? nil : control.timeInterval }

    /// These settings on a box where no DRM device exists at all: played headless at the
    /// fallback size with snapshots (in `defaultDirectory` unless `--snapshots` named one), so
    /// the pictures can be looked at. Nil when the display must open as named.
    public func previewingHeadless(defaultDirectory: String) -> PlayerSettings? {
        guard let size = display.headlessFallback else { return nil }
        var preview = self
        preview.display.target = .headless(size, refreshRate: 60)
        preview.display.headlessFallback = nil
        preview.snapshotDirectory = snapshotDirectory ?? defaultDirectory
        return preview
    }
}

/// The screen a kiosk opens: kiosk.conf's `display` section, or `--display`.
public struct DisplaySettings: Sendable, Equatable {
    public var target: DisplaySpec = .auto
    /// Clockwise turn of the picture on the panel (portrait screens).
    public var rotation: Rotation = .none
    /// Whether decoded frames may be scanned out on a hardware plane (DRM only).
    public var videoPlane: VideoPlanePolicy = .auto
    /// Where no DRM device exists at all (a box or container without a screen), play headless
    /// at this size rather than fail. Only kiosk.conf's DRM display has one: a display named
    /// on the command line opens as named or fails.
    public var headlessFallback: PixelSize?
    /// How the screen is switched off and on outside `display.power` (kiosk.conf only).
    public var powerControl: DisplayPowerControl = .auto
    /// kiosk.conf's `display.splash`: shown until the first frame and as the idle screen.
    public var splash: String?

    public init(target: DisplaySpec = .auto, rotation: Rotation = .none, videoPlane: VideoPlanePolicy = .auto) {
        self.target = target
        self.rotation = rotation
        self.videoPlane = videoPlane
    }

    /// kiosk.conf's display, or `override` (`--display`) with the file's rotation and video
    /// plane policy.
    public init(_ config: DisplayConfig, override: DisplaySpec?) {
        self.init(rotation: config.rotation, videoPlane: config.videoPlane)
        powerControl = config.powerControl
        splash = config.splash
        if let override {
            target = override
            return
        }
        switch config.output {
        case .headless:
            target = .headless(config.headlessSize, refreshRate: 60)
        case .drm:
            var card: String?
            if case .path(let path) = config.card { card = path }
            var connector: String?
            if case .named(let name) = config.connector { connector = name }
            var mode: ModeRequest?
            if case .exactly(let request) = config.mode { mode = request }
            target = .drm(card: card, connector: connector, mode: mode)
            headlessFallback = config.headlessSize
        }
    }
}

/// The schedule a kiosk plays by: kiosk.conf's rules and the zone whose wall clock they are
/// read on. The engine's scheduler asks `evaluator` at every tick (`ScheduleTicker`).
public struct ScheduleSettings: Sendable, Equatable {
    public var rules = Schedule()
    /// `schedule.timezone`, or the box's zone (/etc/localtime) when the file names none.
    public var zone: TimeZone = .current

    public init() {}

    public init(_ config: KioskConfig) {
        rules = config.scheduleRules
        zone = config.scheduleClock.zone
    }

    public var evaluator: ScheduleEvaluator { ScheduleEvaluator(schedule: rules, clock: ZoneClock(zone: zone)) }
    /// A ticker that has not looked yet (its first tick says what applies now).
    public var ticker: ScheduleTicker { ScheduleTicker(evaluator: evaluator) }

    /// What the schedule says at `instant`, and its next change.
    public func dryRun(at instant: Date) -> ScheduleDryRun {
        ScheduleDryRun(rules: rules, clock: ZoneClock(zone: zone), zoneName: zone.identifier, at: instant, span: nil)
    }
}

/// What the command line sets over kiosk.conf; nil (or false) leaves the file's value, or
/// the engine's default for what the file has no key for.
public struct SettingsOverrides: Sendable, Equatable {
    /// `--display`.
    public var display: DisplaySpec?
    /// `--audio`.
    public var audioDevice: AudioConfig.Device?
    /// `--control-socket`: a path, or `.some(nil)` for none.
    public var controlSocket: String??
    /// `--stats-file`.
    public var statsPath: String?
    /// `--snapshots`.
    public var snapshotDirectory: String?
    /// `--snapshot-every`.
    public var snapshotInterval: MediaTime?
    /// `--untimed`.
    public var untimed = false
    /// `kiosk play` ends with its playlist; the service keeps its last frame on screen.
    public var exitWhenFinished = false

    public init() {}

    /// The parts of kiosk.conf the command line replaces: a reload's edit of them changes
    /// nothing and is not worth a "applies on restart" line.
    public var replacedParts: Set<ConfigPart> {
        var parts: Set<ConfigPart> = []
        if display != nil { parts.insert(.display) }
        if audioDevice != nil { parts.insert(.audioDevice) }
        return parts
    }
}

extension PlaybackConfig {
    /// `rate` as the player's exact fraction: the rate `play` uses (AVPlayer's `defaultRate`).
    public var defaultRate: Rational { PlaybackRate.fraction(fromDecimal: rate) }
}
