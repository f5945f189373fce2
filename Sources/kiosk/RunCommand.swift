import ArgumentParser
import Foundation
import KioskCore
import KioskDisplay
import KioskPlayer
import Logging

/// The service's command: read kiosk.conf, play its playlist forever, reload on SIGHUP.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play the playlist of a kiosk.conf, as the boot service does.")

    @Option(help: "The configuration file.")
    var config: String = "/etc/kiosk/kiosk.conf"

    @Option(help: "Override kiosk.conf's display: drm[:CARD[:CONNECTOR[:MODE]]], headless:WxH[@HZ][:vblank] or auto.")
    var display: String?

    @Option(help: "Override kiosk.conf's sound device: an ALSA PCM name or none.")
    var audio: String?

    @Option(name: .customLong("stats-file"), help: "Write one JSON line per presented frame to this file.")
    var statsFile: String?

    @Option(help: "Save what the screen shows as PNGs in this directory (a preview).")
    var snapshots: String?

    @Option(name: .customLong("snapshot-every"), help: "Seconds between two snapshots.")
    var snapshotEvery: Double = 3

    @Option(help: "Stop after this many seconds (previews, tests); default: run until stopped.")
    var duration: Double?

    @Flag(help: "Present frames as fast as they decode, ignoring time (tests, benchmarks).")
    var untimed = false

    @Option(name: .customLong("control-socket"), help: "Override kiosk.conf's control.socket: a Unix socket path, or none.")
    var controlSocket: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let display, DisplaySpec(parsing: display) == nil {
            throw ValidationError("--display must be auto, drm[:CARD[:CONNECTOR[:MODE]]] or headless:WxH[@HZ][:vblank]")
        }
        guard snapshotEvery > 0 else { throw ValidationError("--snapshot-every must be more than 0") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be more than 0") }
    }

    func run() throws {
        let logger = common.makeLogger()
        let settings = try ConfigReading.load(config)
        let entries = ConfigReading.entries(of: settings, logger: logger)
        var snapshotDirectory = snapshots
        let output = try openDisplay(settings.display, logger: logger, snapshotDirectory: &snapshotDirectory)
        if let snapshotDirectory {
            try FileManager.default.createDirectory(atPath: snapshotDirectory, withIntermediateDirectories: true)
        }

        var options = PlayerOptions()
        options.gravity = settings.playback.gravity
        options.startPaused = settings.playback.startPaused
        options.rate = Rational(Int64((settings.playback.rate * 1000).rounded()), 1000)
        options.imageDuration = settings.playback.imageDuration
        options.stallTimeout = settings.playback.stallTimeout
        options.statsPath = statsFile
        options.untimed = untimed
        options.snapshotDirectory = snapshotDirectory
        options.snapshotInterval = MediaTime(seconds: snapshotEvery)
        options.audioOutput = AudioOpener.open(audio.map(AudioOpener.parse) ?? settings.audio.device, logger: logger)
        options.volume = settings.audio.volume
        options.isMuted = settings.audio.muted
        options.overlay = settings.overlay
        let cursor = PlaylistCursor(entries: entries, loopMode: settings.playback.loop)
        let control = try ControlWiring.open(controlSocket.map { $0 == "none" ? nil : $0 } ?? settings.control.socketPath,
                                             logger: logger)
        if control != nil { options.timeInterval = settings.control.timeInterval }
        let player = try QueuePlayer(output: output, playlist: cursor, options: options, logger: logger,
                                     onEvent: ControlWiring.handler(control))
        // SIGHUP and a change of the file take one path (ConfigReloader): what changed applies
        // live where it can; a bad file is rejected and the old configuration plays on.
        let input = LiveInput(output: output, player: player, logger: logger)
        let overridden: Set<ConfigPart> = Set([display.map { _ in .display }, audio.map { _ in .audioDevice }].compactMap { $0 })
        let reloader = ConfigReloader(path: config, config: settings, entries: entries, player: player, input: input,
                                      overridden: overridden, logger: logger)
        let watcher = ConfigFileWatcher(path: config, logger: logger) { reloader.reload(.fileChanged) }
        watcher.start()
        PlaybackSession.run(player, on: output, input: settings.input, duration: duration, logger: logger,
                            reload: { reloader.reload(.signal) }, liveInput: input, control: control)
        watcher.stop()
    }

    /// kiosk.conf's display, or --display. A box with no DRM display at all previews headless,
    /// with snapshots, rather than failing: it says so and where the pictures go.
    private func openDisplay(_ settings: DisplayConfig, logger: Logger, snapshotDirectory: inout String?) throws -> VideoOutput {
        if let display {
            return try DisplayOpener.open(DisplaySpec(parsing: display)!, rotation: settings.rotation, paced: !untimed,
                                          videoPlane: settings.videoPlane)
        }
        let headless = DisplaySpec.headless(settings.headlessSize, refreshRate: 60)
        guard settings.output == .drm else { return try DisplayOpener.open(headless, rotation: settings.rotation, paced: !untimed) }
        var mode: ModeRequest?
        if case .exactly(let request) = settings.mode { mode = request }
        var card: String?
        if case .path(let path) = settings.card { card = path }
        var connector: String?
        if case .named(let name) = settings.connector { connector = name }
        var options = DRMDisplayOptions(card: card, connector: connector, mode: mode, rotation: settings.rotation)
        options.videoPlane = settings.videoPlane
        let result: Result<DRMDisplay, DRMError> = Result { () throws(DRMError) in try DRMDisplay(options: options) }
        switch result {
        case .success(let display):
            return display
        case .failure(.noDRMDirectory(let directory)):
            let previews = snapshotDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-preview").path
            snapshotDirectory = previews
            logger.notice("no DRM display here (\(directory) is missing): playing headless at \(settings.headlessSize), a screenshot every \(snapshotEvery) s in \(previews)")
            return try DisplayOpener.open(headless, rotation: settings.rotation, paced: !untimed)
        case .failure(let error):
            throw RuntimeFailure("\(error)")
        }
    }
}

/// Reading kiosk.conf for `run` and `check`.
enum ConfigReading {
    /// The validated configuration; its errors, one per line with file:line:column, as a
    /// usage failure (exit 2).
    static func load(_ path: String) throws -> KioskConfig {
        do {
            return try ConfigLoader.load(path: path)
        } catch {
            throw ConfigFailure(text: "\(error)")
        }
    }

    /// The playlist entries; what cannot be expanded now (a missing file, an empty folder) is
    /// logged and skipped, since it may appear later.
    static func entries(of config: KioskConfig, logger: Logger) -> [PlaylistEntry] {
        let expansion = PlaylistExpander().expand(config.items)
        for diagnostic in expansion.diagnostics { logger.warning("\(diagnostic)") }
        return expansion.entries
    }
}

/// kiosk.conf has errors: exit 2, each on its own line.
struct ConfigFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}
