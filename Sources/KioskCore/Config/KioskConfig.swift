/// Everything `kiosk.conf` says, validated, with the defaults filled in. The YAML key of each
/// field is given in its comment; `ConfigLoader` builds these and the example `kiosk.conf`
/// documents every key.
public struct KioskConfig: Sendable, Equatable {
    public var display = DisplayConfig()
    public var audio = AudioConfig()
    public var input = InputConfig()
    public var playback = PlaybackConfig()
    public var overlay = OverlayConfig()
    public var control = ControlConfig()
    /// `logging`: records kept for operators (proof of play).
    public var logging = LoggingConfig()
    /// `metrics`: health in Prometheus' format for a fleet's monitoring; off without it.
    public var metrics = MetricsConfig()
    /// `items` (or `playlists.default`): the default playlist, the one played outside every
    /// schedule entry; at least one item in a loaded file.
    public var items: [ItemConfig] = []
    /// `playlists`: the named playlists besides `default`, in file order.
    public var playlists: [PlaylistConfig] = []
    /// `schedule`: entries, inserts, time zone, switch mode. Empty: the default playlist plays.
    public var schedule = ScheduleConfig()
    /// `mqtt`: fleet control over an MQTT broker; off without it.
    public var mqtt = MQTTConfig()
    /// `triggers`: keys, touch zones and control commands that play something once.
    public var triggers: [TriggerConfig] = []
    /// `overrides`: what takes the screen when asked for by name, until it ends (#35).
    public var overrides: [OverrideConfig] = []
    /// `alerts.cap`: a CAP feed whose alerts put an override on screen (#35); nil: none.
    public var alerts: CapFeedConfig?
    /// `web`: the page and JSON API for operators (#36); nil: not served.
    public var web: WebConfig?
    /// `usb`: sticks played (or copied and played) when they are plugged in.
    public var usb = UsbConfig()
    /// `sync`: the playlist as a timeline shared by every box; off without it.
    public var sync = SyncConfig()
    /// `displays`: several screens (separate playlists, a mirror or a span); nil: the single
    /// `display` section.
    public var displays: DisplaysConfig?
    /// `audio_track`: a music bed heard across the items; nil without one.
    public var audioTrack: MusicBedConfig?
    /// `layers`: a clock, text and pictures drawn over every item; none by default.
    public var layers: [LayerConfig] = []

    public init() {}
}

/// `display`: where pictures go.
public struct DisplayConfig: Sendable, Equatable {
    public enum Output: String, Sendable, CaseIterable {
        /// A KMS connector, page-flipped directly.
        case drm
        /// Memory buffers only (tests, benchmarks, boxes without a screen).
        case headless
    }

    public enum Card: Sendable, Equatable {
        /// The first card with a connected output.
        case auto
        /// A device node such as /dev/dri/card0.
        case path(String)
    }

    public enum Connector: Sendable, Equatable {
        /// The first connected connector.
        case auto
        /// A connector name as the kernel spells it: HDMI-A-1, DP-2, Virtual-1.
        case named(String)
    }

    public enum Mode: Sendable, Equatable {
        /// The mode the screen's EDID marks as preferred.
        case preferred
        /// A size, and optionally a refresh rate in Hz (59.94 allowed); "1920x1080@60".
        case exactly(ModeRequest)
    }

    /// `output`: drm | headless.
    public var output: Output = .drm
    /// `card`: auto | /dev/dri/cardN.
    public var card: Card = .auto
    /// `connector`: auto | a connector name.
    public var connector: Connector = .auto
    /// `mode`: preferred | WxH | WxH@HZ.
    public var mode: Mode = .preferred
    /// `rotation`: 0 | 90 | 180 | 270, clockwise, for portrait-mounted screens.
    public var rotation: Rotation = .none
    /// `headless_size`: the frame size when `output` is headless.
    public var headlessSize = PixelSize(width: 1280, height: 720)
    /// `video_plane`: auto | off. auto scans decoded NV12/YUV420 frames out on an overlay plane
    /// where the driver has one that takes them; off always converts on the CPU.
    public var videoPlane: VideoPlanePolicy = .auto
    /// `power`: when the screen is on, as windows (days, from, to, dates); empty: always on.
    public var power: [ScheduleWindow] = []
    /// `power_control`: auto | kms | cec | both, how the screen is switched off and on.
    public var powerControl: DisplayPowerControl = .auto
    /// `splash`: none | an image, shown from kiosk's start until the first frame and as the
    /// idle screen when nothing can play (black without one).
    public var splash: String?

    public init() {}
}

/// `audio`: where sound goes.
public struct AudioConfig: Sendable, Equatable {
    public enum Device: Sendable, Equatable {
        /// No sound at all; the system clock is the master clock.
        case none
        /// An ALSA PCM name: default, hw:0,0, plughw:1,0, a dmix name.
        case pcm(String)
    }

    /// `device`: an ALSA PCM name or none.
    public var device: Device = .pcm("default")
    /// `volume`: 0-100, the starting volume (AVPlayer's volume times 100).
    public var volume = 100
    /// `muted`.
    public var muted = false

    public init() {}
}

/// `input: gestures:` — which touch gestures are recognised.
public struct GestureSwitches: Sendable, Equatable {
    /// `tap`: toggle play/pause and show the overlay.
    public var tap = true
    /// `swipe`: next/previous item.
    public var swipe = true
    /// `scrub`: drag horizontally to seek.
    public var scrub = true
    /// `double_tap`: seek by seek_step on the tapped half of the screen.
    public var doubleTap = false

    public init() {}
}

/// `input`: touch screens and keys.
public struct InputConfig: Sendable, Equatable {
    public enum Devices: Sendable, Equatable {
        /// Every keyboard and touch device, including ones plugged in later.
        case auto
        /// These /dev/input/eventN paths or device names only.
        case listed([String])
    }

    /// `enabled`.
    public var enabled = true
    /// `devices`: auto | a list of paths or names.
    public var devices: Devices = .auto
    /// `grab`: exclusive grab, so keys do not also reach the console.
    public var grab = false
    /// `seek_step`: seconds a seek key or gesture moves, > 0.
    public var seekStep = MediaTime(value: 10, timescale: 1)
    /// `gestures`.
    public var gestures = GestureSwitches()
    /// `keys`: actions given here replace that action's defaults; others keep theirs.
    public var keys = KeyMap.defaults

    public init() {}
}

/// `playback`: what the player does between and within items.
public struct PlaybackConfig: Sendable, Equatable {
    /// The playlist's (`PlaylistLoopMode`), which the cursor keeps without knowing kiosk.conf.
    public typealias LoopMode = PlaylistLoopMode

    /// `loop`: none | item | playlist.
    public var loop: LoopMode = .playlist
    /// `gravity`: fit | fill | stretch (or AVFoundation's names); items may override it.
    public var gravity: VideoGravity = .fit
    /// `start_paused`: show the first frame and wait for a tap or key.
    public var startPaused = false
    /// `rate`: 0.25-4.0, as AVPlayer's rate.
    public var rate = 1.0
    /// `image_duration`: seconds a still image stays when its item sets no `duration`.
    public var imageDuration = MediaTime(value: 10, timescale: 1)
    /// `stall_timeout`: seconds a local item that should be playing may show no new frame and
    /// make no audio progress (beyond the frame it waits for) before it is ended as failed.
    public var stallTimeout = StallGuard.defaultTimeout
    /// `resume`: off | item | position, where a restarted kiosk (after a power loss) starts.
    /// Read at start: a reload changes what the next start does.
    public var resume: ResumeMode = .off
    /// `settle`: seconds a new file in a watched folder (a directory or glob item) must keep
    /// its size when its writer does not close it, before it joins the playlist.
    public var settle = MediaTime(value: 2, timescale: 1)
    /// `region`: where on the screen the video goes (its gravity applies inside it); the
    /// rest stays black for the layers. nil: the whole screen.
    public var region: ScreenRegion?
    /// `transition`: how one item gives way to the next at a seam (cut, fade, crossfade);
    /// an item's own `transition` is how that item comes in.
    public var transition = Transition.cut
    /// `frame_memory`: bytes of decoded frames an item queues ahead of the screen (two are
    /// queued whatever they weigh). 32M holds the usual four at 1080p, two at 4K.
    public var frameMemory = PlaybackConfig.defaultFrameMemory
    public static let defaultFrameMemory = 32 << 20
    /// Below this a 1080p frame (3 MB) would not fit twice: the bound says what the key is for.
    public static let smallestFrameMemory = 4 << 20
    /// `hwdec`: off | auto | vaapi | drm | cuda | v4l2m2m (`HardwareDecoding`).
    public var hwdec = HardwareDecoding.off
    /// `decoder_threads`: auto (`DecoderThreads`' table of picture size and cores) or 1-16.
    public var decoderThreads = DecoderThreads.auto
    /// `deinterlace`: auto | on | off (`Deinterlacing`).
    public var deinterlace = Deinterlacing.auto
    /// `kiosk play --simulate-prime-decoder` only (no kiosk.conf key): each decoded video frame
    /// is also handed on in dma-buf heap memory, as a hardware decoder's DRM PRIME frame, so the
    /// zero-copy path runs where no decoder block exists (the bed's tests).
    public var simulatedPrimeDecoder = false

    public init() {}
}

/// `playback.resume`: what a kiosk that was stopped (or lost power) picks up again.
public enum ResumeMode: String, Sendable, CaseIterable {
    /// Always start from the playlist's first item.
    case off
    /// The item that was playing, from its start.
    case item
    /// The item that was playing, at the position it had reached.
    case position
}

/// `overlay`: the on-screen display (title, position, state).
public struct OverlayConfig: Sendable, Equatable {
    public enum Font: Sendable, Equatable {
        /// A font found with the system's usual paths.
        case auto
        /// A TrueType file, resolved against the config file's directory.
        case file(String)
        /// `[a.ttf, auto]`: the first font, then the next for the characters it lacks (a list
        /// holds files and auto, not lists).
        case list([Font])
    }

    /// `enabled`.
    public var enabled = true
    /// `hide_after`: seconds the overlay stays after the last touch or key, > 0.
    public var hideAfter = MediaTime(value: 3, timescale: 1)
    /// `font`: auto | a path to a TTF | a list of those (fallbacks in order).
    public var font: Font = .auto

    public init() {}
}

/// `control`: the local control socket and its events.
public struct ControlConfig: Sendable, Equatable {
    /// `socket`: none (nil) or the path of a Unix socket, resolved against the config's directory.
    public var socketPath: String?
    /// `time_interval`: seconds between periodic time events, > 0.
    public var timeInterval = MediaTime(value: 1, timescale: 1)

    public init() {}
}

/// `logging`: what kiosk writes down for the people who run the screens.
public struct LoggingConfig: Sendable, Equatable {
    /// The default limit of the proof-of-play file before it is rotated: 10 MiB, some 50,000
    /// plays, small enough for an SD card yet a few weeks of a busy screen.
    public static let defaultProofOfPlayLimit = 10 * 1024 * 1024

    /// `proof_of_play`: the JSON-lines file of plays (resolved against the config's folder);
    /// nil (absent): none is kept.
    public var proofOfPlayPath: String?
    /// `proof_of_play_max`: bytes (written 10M, 512K, 1G or plain bytes) after which the file
    /// is renamed to .1 (.1 to .2, ...) and a new one begun; at least 4 KiB.
    public var proofOfPlayLimit = LoggingConfig.defaultProofOfPlayLimit

    public init() {}
}

/// `metrics`: the kiosk's health (`HealthSnapshot`) in Prometheus' text format.
public struct MetricsConfig: Sendable, Equatable {
    /// The interval node_exporter's own textfile docs suggest for a cron job is a minute; a
    /// screen that went dark should show within one scrape (15 s is Prometheus' usual).
    public static let defaultInterval = MediaTime(value: 15, timescale: 1)

    /// `textfile`: a `.prom` file for node_exporter's textfile collector (its
    /// `--collector.textfile.directory`), rewritten whole (temporary file and rename) every
    /// `interval`; nil: none.
    public var textfile: String?
    /// `interval`: seconds between two writes, 1-3600.
    public var interval = MetricsConfig.defaultInterval
    /// `listen`: `127.0.0.1:9477` (Prometheus' port for it), `[::1]:9477` or `0.0.0.0:9477` (the
    /// LAN, by choice): `GET /metrics` answered there; nil: no listener.
    public var listen: ListenAddress?

    public init() {}
}

/// Where a server listens: an IP literal (a name would depend on a resolver at boot) and a port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:9477`, `[::1]:9477`; nil for anything else (a name, no port, a port out of 1-65535).
    public init?(parsing text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            host = parts[0]
            port = parts[1]
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            // ASCII digits only: `isNumber` also takes ² or ٣, which Int() does not read.
            guard octets.count == 4,
                  octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && (Int($0) ?? 256) <= 255 })
            else { return nil }
        }
        guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit), let number = Int(port), (1...65535).contains(number) else { return nil }
        self.init(host: String(host), port: number)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Reachable from this box only.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
