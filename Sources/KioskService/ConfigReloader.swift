import Foundation
import KioskCore
import KioskPlayer
import Logging

/// The one reload path of `kiosk run`, for SIGHUP and for changes of the file (inotify): reads
/// kiosk.conf, and when it is valid applies what changed to the running player; when it is not,
/// logs each error with file:line:column and leaves the old configuration playing. Watched
/// folders come through here too (`foldersChanged`): the same expansion and hand-over, from the
/// last valid file, without reading it again.
package final class ConfigReloader: @unchecked Sendable {
    /// `pageEdited`: the web page wrote its playlist file (read again whatever kiosk.conf's bytes are).
    package enum Trigger { case signal, fileChanged, foldersChanged, pageEdited }

    // Safe to share: every var is touched only inside `lock` (SIGHUP and the file watch may
    // ask at the same time; one reload runs after the other).
    private let lock = NSLock()
    private let path: String
    private let player: QueuePlayer
    private let input: LiveInput
    private let logger: Logger
    /// Parts the command line overrides (--display, --audio): the file's values do not matter.
    private let replaced: Set<ConfigPart>
    /// What runs: the sections that wait for a restart keep the values the process started with.
    private var running: KioskConfig
    /// What the player plays by (the running configuration with the command line's overrides).
    private var settings: PlayerSettings
    private var runningEntries: [PlaylistEntry]
    /// The last valid file read, to say "applies on restart" once per edit, not per reload.
    private var lastRead: KioskConfig
    /// The bytes last read (nil: the file could not be read), so that a save that did not
    /// change the file, or the second event of one save, does nothing.
    private var lastContents: Data??
    /// The last file read was rejected: when it is fixed, say so even if nothing changes.
    /// The file on disk was refused (a reload's, or the start's when it played the last good
    /// copy): its fix says "reloaded" even when it changes nothing.
    package var lastWasRejected = false
    /// kiosk check's warnings of the file playing, as said (set before the first reload can come).
    package var warningsSaid: [String] = []
    /// With a schedule (before or after the reload), the playlist is the scheduler's to send.
    private let schedule: ScheduleDriver?
    /// kiosk.conf's triggers, expanded again at every reload (`item: N` follows the default
    /// playlist, a playlist's folder may have changed).
    private let triggers: LiveTriggers?
    /// kiosk.conf's overrides, expanded again at every reload as triggers are (made after the
    /// player, so set once it exists).
    package var overrides: OverrideDesk?
    /// Files of watched folders not ready yet (still being written): left out of every expansion.
    private var hidden: Set<String> = []
    /// The diagnostics of the last expansion for a folder change: an empty folder is said once.
    private var lastFolderDiagnostics: [String] = []
    /// A separate layout's other screens as the file last read had them (said once per edit).
    private var lastReadOtherScreens: [DisplayOutputConfig]
    /// A stick plays instead of the configured playlist: new entries are kept, not handed over.
    private var heldByStick = false
    /// Told a reloaded `playback.settle` (the folder watcher takes it at its next look). Set
    /// before the first reload can come.
    package var settleChanged: (@Sendable (Double) -> Void)?
    /// Told the bytes of each kiosk.conf a reload took (LastGoodConfig keeps them).
    package var accepted: (@Sendable (Data) -> Void)?
    /// The watched folders' files not ready now, for the items of a file just read (set
    /// before the first reload can come).
    package var notReadyNow: (@Sendable ([ItemConfig]) -> Set<String>)?

    package init(path: String, config: KioskConfig, entries: [PlaylistEntry], settings: PlayerSettings, player: QueuePlayer,
         input: LiveInput, schedule: ScheduleDriver? = nil, triggers: LiveTriggers? = nil, replaced: Set<ConfigPart>,
         logger: Logger, notReady: Set<String> = [], problemsSaid: [String] = [], otherScreens: [DisplayOutputConfig] = [],
         startRead: Data? = nil) {
        hidden = notReady
        lastReadOtherScreens = otherScreens
        lastFolderDiagnostics = problemsSaid
        self.schedule = schedule
        self.triggers = triggers
        self.path = path
        running = config
        self.settings = settings
        lastRead = config
        runningEntries = entries
        self.player = player
        self.input = input
        self.replaced = replaced
        self.logger = logger
        // The bytes the start read (a fix saved meanwhile is a change then), else the file now.
        lastContents = .some(startRead ?? FileManager.default.contents(atPath: path))
    }

    package func reload(_ trigger: Trigger) {
        lock.withLock { reloadLocked(trigger) }
    }

    /// The folder watcher looked again: `hidden` are the files not ready yet.
    package func foldersChanged(hidden: Set<String>) {
        lock.withLock {
            self.hidden = hidden
            reloadLocked(.foldersChanged)
        }
    }

    /// Content sync switched to a new set: the items are expanded again (a `- sync: true`
    /// entry lists the new set) and a changed list handed over as for a watched folder.
    package func contentSynced() {
        lock.withLock { reloadLocked(.foldersChanged) }
    }

    /// The items of the configuration playing, for the folder watcher.
    package var items: [ItemConfig] { lock.withLock { running.items } }

    /// The stick watcher decides, from the configured playlist as expanded last, whether a
    /// stick's media play instead of it (`held`: reloads then keep new entries for later and
    /// hand the player none) and sends its request, all in one turn of the lock, so a reload
    /// cannot slip a list in between.
    package func steer(_ decide: ([PlaylistEntry]) -> Bool) {
        lock.withLock { heldByStick = decide(runningEntries) }
    }

    private func reloadLocked(_ trigger: Trigger) {
        if trigger == .foldersChanged {
            refreshFoldersLocked()
            return
        }
        let contents = FileManager.default.contents(atPath: path)
        if trigger == .fileChanged, let last = lastContents, last == contents { return }
        lastContents = .some(contents)
        let whole: KioskConfig
        do throws(ConfigError) {
            if let contents {
                whole = try ConfigLoader.load(contents: contents, path: path)
            } else {
                whole = try ConfigLoader.load(path: path)   // unreadable: it names the reason
            }
        } catch {
            logger.error("\(path): not reloaded, the old configuration keeps playing; its errors:")
            for diagnostic in error.diagnostics { logger.error("\(diagnostic)") }
            lastWasRejected = true
            return
        }
        let new = whole.primaryScreen
        let others = whole.displays?.otherScreens ?? []
        if others != lastReadOtherScreens {
            // Their engines are made at the start (a reload said "nothing to change" for them).
            logger.notice("\(path): displays' other screens (\(Set(others.map(\.name) + lastReadOtherScreens.map(\.name)).sorted().joined(separator: ", "))) changed: applies on restart")
            lastReadOtherScreens = others
        }
        let wasRejected = lastWasRejected
        lastWasRejected = false
        if let contents { accepted?(contents) }
        // kiosk check's warnings: those the file did not have before, once each (by what they
        // say, not where: a line added above one moves it).
        let warnings = ConfigWarnings.of(whole)
        let said = Set(warningsSaid.map(ConfigWarnings.withoutPlace))
        for warning in warnings where !said.contains(ConfigWarnings.withoutPlace(warning)) { logger.warning("\(warning)") }
        warningsSaid = warnings
        if let notReadyNow { hidden = notReadyNow(new.items) }
        let (entries, problems) = ConfigReading.expanded(new, logger: logger, fileSystem: SettledFileSystem(hidden: hidden))
        lastFolderDiagnostics = problems   // said; the folder watcher's next look says only new ones
        let changes = ConfigChanges(from: running, to: new)
        let sinceLastRead = ConfigChanges(from: lastRead, to: new)
        lastRead = new
        let playlistChanged = !runningEntries.playLike(entries)
        for part in changes.waitingForRestart where sinceLastRead.contains(part) && !replaced.contains(part) {
            logger.notice("\(path): \(part.rawValue) section changed: applies on restart")
        }
        guard !changes.appliedNow.isEmpty || playlistChanged else {
            if trigger == .signal || wasRejected { logger.notice("\(path): reloaded, nothing to change") }
            return
        }
        // The player gets the whole new value; it takes what changed (SettingsReload).
        let wasScheduled = !settings.schedule.rules.isEmpty
        settings = settings.reloaded(from: new)
        let scheduled = wasScheduled || !settings.schedule.rules.isEmpty
        let handOver = playlistChanged && !scheduled && !heldByStick
        player.reload(settings, entries: handOver ? entries : nil)
        if let schedule, scheduled,
           playlistChanged || changes.contains(.schedule) || changes.contains(.playlists) || changes.contains(.items) {
            // Its first look at the new rules sends the playlist (at the seam, or now) and power.
            schedule.replace(settings.schedule, requests: ScheduleDriver.requests(for: new, defaultEntries: entries, logger: logger))
        }
        let triggersChanged = triggers?.replace(with: TriggerWiring.resolve(new, defaultEntries: entries, logger: logger)) ?? false
        if changes.contains(.input) { input.apply(settings.input) } else if triggersChanged { input.reopenForTriggers() }
        overrides?.replace(with: TriggerWiring.resolveOverrides(new, defaultEntries: entries, logger: logger))
        if changes.playbackSettings.contains(.settle) { settleChanged?(new.playback.settle.seconds) }
        var applied = changes.appliedSummary
        if playlistChanged && !changes.contains(.items) {
            applied += (applied.isEmpty ? "" : ", ") + "items (the folders' files changed)"
        }
        logger.notice("\(path): reloaded: \(applied)")
        running = new.appliedLive(to: running)
        runningEntries = entries
    }
}

extension ConfigReloader {
    /// A watched folder changed: the last valid file's items expanded again, and the new list
    /// handed over like a reload's (the item playing plays on if it is still there). One line
    /// says what joined and left; an expansion problem (a folder now empty) is said once.
    private func refreshFoldersLocked() {
        let expansion = PlaylistExpander(fileSystem: SettledFileSystem(hidden: hidden)).expand(running.items)
        let diagnostics = expansion.diagnostics.map(\.description)
        for diagnostic in diagnostics where !lastFolderDiagnostics.contains(diagnostic) { logger.warning("\(diagnostic)") }
        lastFolderDiagnostics = diagnostics
        let entries = expansion.entries
        guard !runningEntries.playLike(entries) else { return }
        logger.notice("watched folders: \(PlaylistDifference(from: runningEntries, to: entries).summary)")
        runningEntries = entries
        // A trigger's `item: N` counts in the default playlist, which the folder just changed.
        if triggers?.replace(with: TriggerWiring.resolve(running, defaultEntries: entries, logger: logger)) == true {
            input.reopenForTriggers()
        }
        overrides?.replace(with: TriggerWiring.resolveOverrides(running, defaultEntries: entries, logger: logger))
        if !settings.schedule.rules.isEmpty {
            schedule?.replace(settings.schedule, requests: ScheduleDriver.requests(for: running, defaultEntries: entries, logger: logger))
        } else if !heldByStick {
            player.reload(settings, entries: entries)
        }
    }
}
