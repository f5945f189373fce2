import ArgumentParser
import Foundation
import KioskControl
import KioskCore
import KioskPlayer
import KioskService
import Logging

/// The service's command: read kiosk.conf, play its playlist forever, reload on SIGHUP.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Play the playlist of a kiosk.conf, as the boot service does.")

    @Option(help: "The configuration file.")
    var config: String = "/etc/kiosk/kiosk.conf"

    @Option(help: "Override kiosk.conf's display: drm[:CARD[:CONNECTOR[:MODE]]], headless:WxH[@HZ][:vblank][:planes] or auto.")
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

    @Option(name: .customLong("state-dir"), help: "Where playback.resume keeps its place (systemd's StateDirectory).")
    var stateDir: String = "/var/lib/kiosk"

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let display, DisplaySpec(parsing: display) == nil {
            throw ValidationError("--display must be auto, drm[:CARD[:CONNECTOR[:MODE]]] or headless:WxH[@HZ][:vblank][:planes]")
        }
        try checkSeconds(snapshotEvery, option: "--snapshot-every")
        try checkSeconds(duration, option: "--duration")
    }

    /// What the command line sets over kiosk.conf.
    var overrides: SettingsOverrides {
        var overrides = SettingsOverrides()
        overrides.display = display.flatMap(DisplaySpec.init(parsing:))
        overrides.audioDevice = audio.map(AudioOpener.parse)
        overrides.controlSocket = controlSocket.map { $0 == "none" ? nil : $0 }
        overrides.statsPath = statsFile
        overrides.snapshotDirectory = snapshots
        overrides.snapshotInterval = MediaTime(seconds: snapshotEvery)
        overrides.untimed = untimed
        return overrides
    }

    /// kiosk.conf, kept as the last good one; a kiosk.conf with errors plays the last good one
    /// (LastGoodConfig), its errors logged, or stops the start when there is none.
    /// Also the bytes the start read, which the reloader compares the file with (a fix saved
    /// while kiosk started is then a change). A kiosk.conf that is not there is the operator's
    /// choice, not a broken file: no copy plays for it.
    private func loadOrLastGood(_ lastGood: LastGoodConfig, logger: Logger) throws -> (KioskConfig, fromLastGood: Bool, read: Data?) {
        do {
            let (config, contents) = try ConfigReading.loadForStart(self.config, logger: logger)
            lastGood.save(contents, of: self.config, logger: logger)
            return (config, false, contents)
        } catch let failure as ConfigFailure {
            let read = FileManager.default.contents(atPath: self.config)
            guard FileManager.default.fileExists(atPath: self.config),
                  let (config, savedAt) = lastGood.load(as: self.config, logger: logger) else { throw failure }
            for line in failure.text.split(separator: "\n") { logger.error("\(line)") }
            let line = "\(self.config) has the errors above: playing kiosk.conf as it last loaded (\(lastGood.path), "
                + "kept \(ISO8601DateFormatter().string(from: savedAt))) until it is fixed; the fixed file is taken at once"
            logger.error("\(line)")
            return (config, true, read)
        }
    }

    func run() throws {
        let logger = common.makeLogger()
        // A --state-dir that is not there yet is made, quietly, as systemd's StateDirectory= is
        // (the resume place, overrides and alerts were each "cannot create ...; not saved").
        if !FileManager.default.fileExists(atPath: stateDir) {
            do {
                try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o750])
            } catch {
                logger.warning("state: cannot make \(stateDir) (\(error.localizedDescription)); resume, overrides and alerts are not kept")
            }
        }
        let lastGood = LastGoodConfig(stateDirectory: stateDir)
        let (file, fromLastGood, startRead) = try loadOrLastGood(lastGood, logger: logger)
        // kiosk check's warnings, for a box read through its journal (a reload says new ones).
        let warnings = ConfigWarnings.of(file)
        for warning in warnings { logger.warning("\(warning)") }
        // With several screens: what the main engine plays by (ScreenWiring).
        let config = file.primaryScreen
        // Directory and glob items are watched: a clip being copied in while kiosk starts is
        // left out until it is complete (FolderWatcher).
        let folders = FolderWatcher(settle: config.playback.settle.seconds, logger: logger)
        let notReady = folders.notReady(in: WatchedFolders.directories(of: config.items))
        let (defaultEntries, problemsSaid) = ConfigReading.expanded(config, logger: logger, fileSystem: SettledFileSystem(hidden: notReady))
        var entries = defaultEntries
        // Keys, zones and the control socket's `trigger NAME` (item N counts in the default playlist).
        let triggers = LiveTriggers(TriggerWiring.resolve(config, defaultEntries: defaultEntries, logger: logger))
        var settings = PlayerSettings(config: config, overrides: overrides)
        // The schedule's first look picks the playlist the player starts with.
        let scheduleRequests = ScheduleDriver.requests(for: config, defaultEntries: defaultEntries, logger: logger)
        let firstLook = ScheduleDriver.firstLook(settings.schedule, requests: scheduleRequests)
        entries = firstLook.entries
        let screens = try ScreenWiring.open(file, settings: &settings, logger: logger)
        let output = screens.output
        if let snapshotDirectory = settings.snapshotDirectory {
            try FileManager.default.createDirectory(atPath: snapshotDirectory, withIntermediateDirectories: true)
        }
        let sound = AudioOpener.open(settings.audio.device, logger: logger)
        let cursor = PlaylistCursor(entries: entries, loopMode: settings.playback.loop)
        let control = try ControlWiring.open(settings.control.socketPath, logger: logger)
        let cec = DisplayPowerWiring.cecFollower(settings.display.powerControl, logger: logger)
        // Fleet control over MQTT (kiosk.conf `mqtt`), when configured: one more observer of the
        // player's events and one more source of the control socket's commands.
        let fleet = FleetConnection.make(config.mqtt, logger: logger)
        // Proof of play, resume and metrics observe the player's events.
        let operations = OperationsWiring(config: config, configPath: self.config, stateDirectory: stateDir,
                                          entries: entries, logger: logger,
                                          playRecorded: config.mqtt.proofOfPlay ? fleet?.playRecorded : nil)
        // The player's event observers, told in this order (ARCHITECTURE.md, "What comes out").
        let observers = PlayerEventObservers([control, CECObserver(cec), fleet?.bridge] + operations.observers)
        let player = try QueuePlayer(output: output, playlist: cursor, settings: settings, audioOutput: sound, logger: logger,
                                     onEvent: observers.handler)
        operations.attach(player)
        let companions = try screens.companions(of: file, overrides: overrides, logger: logger)
        // SIGHUP and a change of the file take one path (ConfigReloader): what changed applies
        // live where it can; a bad file is rejected and the old configuration plays on.
        let input = LiveInput(output: output, player: player, logger: logger, triggers: triggers)
        let schedule = ScheduleDriver(settings: settings.schedule, ticker: firstLook.ticker, requests: scheduleRequests,
                                      sink: player, logger: logger)
        for request in firstLook.then { player.send(request) }
        // The TV may be in standby from the night before: wake it (and take its input) when the
        // schedule says the screen is on now; off, the player's event sends it to standby.
        if firstLook.ticker.state?.powerOn ?? true { cec?.displayPowerChanged(on: true) }
        schedule.start()
        defer { schedule.stop() }
        // Triggers' GPIO lines (libgpiod): a debounced edge fires its trigger as its key would.
        let gpio = GPIOTriggerWatcher(triggers: triggers, sink: player, logger: logger)
        gpio.start()
        defer { gpio.stop() }
        // The default playlist, which a reload expands again and compares (the schedule's first
        // pick made the first reload see "the folders' files changed" and send the schedule again).
        let reloader = ConfigReloader(path: self.config, config: config, entries: defaultEntries, settings: settings,
                                      player: player, input: input, schedule: schedule, triggers: triggers,
                                      replaced: overrides.replacedParts, logger: logger, notReady: notReady,
                                      problemsSaid: problemsSaid, otherScreens: file.displays?.otherScreens ?? [],
                                      startRead: startRead)
        reloader.settleChanged = { folders.setSettle($0) }
        reloader.accepted = { [config = self.config] in lastGood.save($0, of: config, logger: logger) }
        reloader.lastWasRejected = fromLastGood
        reloader.warningsSaid = warnings
        reloader.notReadyNow = { folders.notReady(in: WatchedFolders.directories(of: $0)) }
        let watcher = ConfigFileWatcher(path: self.config, logger: logger) { reloader.reload(.fileChanged) }
        watcher.start()
        folders.start(directories: { WatchedFolders.directories(of: reloader.items) },
                      onLook: { reloader.foldersChanged(hidden: $0) })
        let sticks = UsbWiring.start(config.usb, reloader: reloader, sink: player, logger: logger)
        // Content sync (sync.manifest): fetches beside playback; a switch reaches the player as a
        // watched folder's change does. Its keys apply on restart.
        let syncEvents = [control as (any ServiceEventObserver)?, fleet?.bridge].compactMap { $0 }
        let contentSync = ContentSyncer.start(config.sync.content, switched: { reloader.contentSynced() },
                                               events: syncEvents, logger: logger)
        if let contentSync { operations.health.attach(sync: { contentSync.healthFigures }) }
        if let fleet { operations.health.attach(mqttConnected: { fleet.isConnected }) }
        // The screens' cables: one unplugged is an alert, one plugged in again gets its mode anew.
        let cables = DisplayConnectionWatcher(outputs: [output] + companions.map(\.output), logger: logger)
        cables.start()
        defer { cables.stop() }
        operations.health.attach(display: { cables.figures })
        // The TV's own word on its power (HDMI-CEC), asked once a minute and after each change.
        if let cec {
            cec.watchTVPower(every: 60)
            operations.health.attach(tvPowerOn: { cec.tvPowerOn })
        }
        defer { cec?.stopWatchingTVPower() }
        // Overrides (`override NAME` from any source): one more source of the player's requests.
        let overrideDesk = OverrideDesk(TriggerWiring.resolveOverrides(config, defaultEntries: defaultEntries, logger: logger),
                                        sink: player, events: syncEvents, statePath: stateDir + "/overrides",
                                        logger: logger)
        reloader.overrides = overrideDesk
        overrideDesk.open()
        defer { overrideDesk.close() }
        // CAP alerts (alerts.cap): each alert shown is an override on the desk.
        let alerts = config.alerts.map { CapPoller($0, desk: overrideDesk, sink: player, statePath: stateDir + "/cap-alerts",
                                                   logger: logger) }
        alerts?.start()
        defer { alerts?.stop() }
        // Every service exists now: one value for every request source (socket, MQTT).
        let services = Services(player: player, schedule: schedule, triggers: triggers, contentSync: contentSync,
                                overrides: overrideDesk, health: operations.health, alerts: alerts)
        // Command triggers (a key, a zone or a GPIO line running a row of the command table).
        triggers.connectCommands { line in ControlDispatcher(services: services).refusal(carryingOut: line) }
        fleet?.start(services)
        defer { fleet?.stop() }
        // The web page (kiosk.conf `web`): one more source of the same command table.
        let web = config.web.flatMap {
            WebConsole.start($0, services: services, configPath: self.config, stateDirectory: stateDir, logger: logger,
                             reload: { reloader.reload(.pageEdited) })
        }
        defer { web?.stop() }
        PlaybackSession.run(player, on: output, input: settings.input, duration: duration, logger: logger,
                            reload: { reloader.reload(.signal) }, liveInput: input, control: control, services: services,
                            startingAt: operations.resume?.startPoint,
                            companions: companions, started: { operations.playerStarted(player) })
        contentSync?.stop()
        operations.playerStopping()
        operations.finish()
        sticks?.stop()
        folders.stop()
        watcher.stop()
    }
}
