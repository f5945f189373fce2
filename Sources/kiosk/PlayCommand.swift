import ArgumentParser
import Foundation
import KioskCore
import KioskMedia
import KioskPlayer
import KioskService
import Logging

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play media files full screen, one after the other (like mpv --vo=drm).")

    @Argument(help: "Media files, directories, globs or URLs.")
    var media: [String]

    @Option(help: "fit (resizeAspect), fill (resizeAspectFill) or stretch (resize).")
    var gravity: VideoGravity = .fit

    @Flag(help: "Loop the playlist forever.")
    var loop = false

    @Option(help: "drm[:CARD[:CONNECTOR[:MODE]]], headless:WxH[@HZ][:vblank][:planes] or auto.")
    var display: String = "auto"

    @Option(help: "Display rotation, clockwise degrees: 0, 90, 180 or 270 (portrait screens).")
    var rotation: Int = 0

    @Option(name: .customLong("video-plane"),
            help: "auto: scan NV12/YUV420 frames out on a hardware plane where the driver has one; off: always convert on the CPU.")
    var videoPlane: VideoPlanePolicy = .auto

    @Option(help: "Hardware decoding through FFmpeg, falling back to software: off, auto, vaapi, drm, cuda or v4l2m2m.")
    var hwdec: HardwareDecoding = .off

    @Option(help: "Interlaced video: auto (frames flagged interlaced woven whole with bwdif), on (every frame) or off.")
    var deinterlace: Deinterlacing = .auto

    @Flag(name: .customLong("simulate-prime-decoder"),
          help: "Hand each decoded video frame on in dma-buf heap memory as a hardware decoder's DRM PRIME frame would be, so the zero-copy path is tried without a decoder block (tests).")
    var simulatePrimeDecoder = false

    @Option(help: "An ALSA PCM (default, hw:0,0, plughw:1,0, a dmix name) or none.")
    var audio: String = "default"

    @Option(help: "Volume, 0 to 100.")
    var volume: Int = 100

    @Flag(help: "Start muted.")
    var mute = false

    @Option(name: .customLong("stats-file"), help: "Write one JSON line per presented frame to this file.")
    var statsFile: String?

    @Option(help: "Playback rate, 0.25 to 4.")
    var rate: Double = 1

    @Flag(name: .customLong("start-paused"), help: "Show the first frame and wait.")
    var startPaused = false

    @Flag(help: "Present frames as fast as they decode, ignoring time (tests, benchmarks).")
    var untimed = false

    @Option(help: "Stop after this many seconds (tests, benchmarks); default: until the end.")
    var duration: Double?

    @Option(name: .customLong("image-duration"), help: "Seconds a still image stays (default 10).")
    var imageDuration: Double = 10

    @Option(name: .customLong("stall-timeout"),
            help: "Seconds a local item may show no new frame and make no audio progress before it is skipped (default 5).")
    var stallTimeout: Double = StallGuard.defaultTimeout.seconds

    @Option(name: .customLong("control-socket"), help: "Listen for control commands on this Unix socket (see kiosk ctl).")
    var controlSocket: String?

    @OptionGroup var input: PlayInputOptions

    @OptionGroup var overlay: PlayOverlayOptions

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard !media.isEmpty else { throw ValidationError("give at least one media file") }
        guard DisplaySpec(parsing: display) != nil else {
            throw ValidationError("--display must be auto, drm[:CARD[:CONNECTOR[:MODE]]] or headless:WxH[@HZ][:vblank][:planes] "
                                  + "(sides 1 to \(DisplaySpec.largestSide))")
        }
        guard Rotation(degrees: rotation) != nil, (0..<360).contains(rotation) else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270")
        }
        try checkSeconds(duration, option: "--duration")
        try checkSeconds(imageDuration, option: "--image-duration")
        try checkSeconds(stallTimeout, option: "--stall-timeout")
        guard stallTimeout >= StallGuard.shortestTimeout.seconds else {
            throw ValidationError("--stall-timeout must be at least \(StallGuard.shortestTimeout.seconds) s")
        }
        guard (0...100).contains(volume) else { throw ValidationError("--volume must be between 0 and 100") }
        guard rate.isFinite, PlaybackRate.isPlayable(PlaybackRate.fraction(fromDecimal: rate)) else {
            throw ValidationError("--rate must be between 0.25 and 4")
        }
    }

    func run() throws {
        let logger = common.makeLogger()
        let items = media.enumerated().map { index, text in
            ItemConfig(source: ItemSource.classify(text, baseDirectory: FileManager.default.currentDirectoryPath,
                                                   fileSystem: LocalFileSystem()),
                       location: SourceLocation(file: "argument \(index + 1)", line: 0, column: 0))
        }
        let expansion = PlaylistExpander().expand(items)
        for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
        guard !expansion.entries.isEmpty else { throw RuntimeFailure("nothing to play") }

        var settings = PlayerSettings(config: config(items: items), overrides: overrides)
        let sound = AudioOpener.open(settings.audio.device, logger: logger)
        let output = try DisplayOpener.open(&settings, logger: logger)
        let cursor = PlaylistCursor(entries: expansion.entries, loopMode: settings.playback.loop)
        let control = try ControlWiring.open(settings.control.socketPath, logger: logger)
        let nothingPlayed = NothingPlayedFlag()
        let player = try QueuePlayer(output: output, playlist: cursor, settings: settings, audioOutput: sound,
                                     logger: logger, onEvent: { event in
                                         switch event {
                                         case .nothingPlayable: nothingPlayed.set(true)
                                         // A later pass played (a clip that failed once under load).
                                         case .playback(.itemStarted, _, _): nothingPlayed.set(false)
                                         default: break
                                         }
                                         control?.observe(event)
                                     })
        let stoppedBySignal = PlaybackSession.run(player, on: output, input: settings.input, duration: duration, logger: logger,
                                                  control: control)
        // Every item of the last pass failed, and nothing played after: a media error, exit 1
        // (the reasons are logged), unless the user stopped it (SIGTERM exits 0, as `run`).
        if nothingPlayed.isSet && !stoppedBySignal { throw RuntimeFailure("nothing could be played") }
    }

    /// The configuration the flags describe, as if a kiosk.conf said it: `PlayerSettings`
    /// maps it like `run`'s file.
    func config(items: [ItemConfig]) -> KioskConfig {
        var config = KioskConfig()
        config.display.rotation = Rotation(degrees: rotation)!
        config.display.videoPlane = videoPlane
        config.playback.hwdec = hwdec
        config.playback.deinterlace = deinterlace
        config.playback.simulatedPrimeDecoder = simulatePrimeDecoder
        config.audio.device = AudioOpener.parse(audio)
        config.audio.volume = volume
        config.audio.muted = mute
        config.input = input.config
        config.playback.loop = loop ? .playlist : .none
        config.playback.gravity = gravity
        config.playback.startPaused = startPaused
        config.playback.rate = rate
        config.playback.imageDuration = MediaTime(seconds: imageDuration)
        config.playback.stallTimeout = MediaTime(seconds: stallTimeout)
        config.overlay = overlay.config
        config.control.socketPath = controlSocket
        config.items = items
        return config
    }

    /// What `play` sets that a kiosk.conf does not: the display it names (opened as named,
    /// never a headless preview), and an end when the playlist does.
    var overrides: SettingsOverrides {
        var overrides = SettingsOverrides()
        overrides.display = DisplaySpec(parsing: display)
        overrides.statsPath = statsFile
        overrides.untimed = untimed
        overrides.exitWhenFinished = !loop
        return overrides
    }
}

/// Set on the presenter thread when no item could play, read once playback has ended.
private final class NothingPlayedFlag: @unchecked Sendable {
    // Safe to share: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value = false
    func set(_ failed: Bool) { lock.withLock { value = failed } }
    var isSet: Bool { lock.withLock { value } }
}
