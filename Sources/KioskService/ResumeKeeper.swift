import Foundation
import KioskCore
import KioskPlayer
import Logging

/// `playback.resume` for `kiosk run`: at start, takes the player back to where the state file
/// says it was; while it plays, saves where it is every `interval` seconds (when that
/// changed) and once more on a clean stop. The disk is written on a queue of its own; the
/// presenter thread only hands events over.
package final class ResumeKeeper: PlayerEventObserver, @unchecked Sendable {
    /// Seconds between two saves: a restart goes back at most this much and a timer's lateness
    /// (issue 34 asks for 3 s at most behind), and an SD card sees under 45,000 small writes a
    /// day (a few hundred MB with the journal: a card's wear levelling spreads that for years).
    package static let interval = 2.0
    /// How long the start may take to reach the saved place before saving begins anyway.
    package static let settleTimeout = 15.0
    /// The player publishes its snapshot right after the events of a change.
    package static let snapshotDelay = 0.2

    // Safe to share: every mutable field is touched only on `queue`.
    private let queue = DispatchQueue(label: "kiosk-resume")
    private let path: String
    private let configPath: String
    private let mode: ResumeMode
    private let logger: Logger
    private weak var player: QueuePlayer?
    private var start: ResumeStart
    /// The entry of the loop playing, as its itemStarted said; nil while an insert plays (the
    /// place saved before it stays: an insert is not where to resume).
    private var playing: (index: Int, source: String)?
    private var lastSaved: ResumeState?
    private var timer: DispatchSourceTimer?
    private var loggedFailure: String?

    /// Reads the state file in `directory` for `configPath`'s playlist `entries`; one line
    /// when it is missing, torn or foreign, or its item is gone.
    package init(mode: ResumeMode, directory: String, configPath: String, entries: [PlaylistEntry], logger: Logger) {
        self.mode = mode
        path = (directory as NSString).appendingPathComponent("resume.json")
        self.configPath = configPath
        self.logger = logger
        start = ResumeStart(Self.point(path: path, config: configPath, mode: mode,
                                       sources: entries.map(\.media.description), logger: logger))
    }

    private static func point(path: String, config: String, mode: ResumeMode, sources: [String],
                              logger: Logger) -> ResumePoint? {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = FileManager.default.fileExists(atPath: path) ? "cannot read" : "no saved place at"
            logger.notice("resume: \(why) \(path); starting from the beginning")
            return nil
        }
        switch ResumeState.decode(data, config: config) {
        case .failure(let rejection):
            logger.warning("resume: ignoring \(path): \(rejection); starting from the beginning")
            return nil
        case .success(let state):
            let point = ResumePoint.find(state, in: sources, mode: mode)
            switch point {
            case .itemGone?:
                logger.notice("resume: \(state.path) (item \(state.index)) is not in the playlist any more; starting from the beginning")
            case .entry(let index, let position)?:
                let at = position.map { String(format: " at %.1f s", $0) } ?? ""
                logger.notice("resume: item \(index) \(state.path)\(at)")
            case nil: break
            }
            return point
        }
    }

    /// The player, before it starts: the seek is sent to it once the item is ready.
    package func attach(_ player: QueuePlayer) {
        queue.sync { self.player = player }
    }

    /// Where the player is to start: the saved entry at the saved place, opened there before
    /// its first frame (nil: the playlist's start).
    package var startPoint: PlaylistStartPoint? { queue.sync { start.startPoint } }

    /// Right after the player started: saving begins (once the start reached its place).
    package func begin(_ player: QueuePlayer) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        timer.setEventHandler { [weak self] in self?.saveIfChanged() }
        timer.resume()
        queue.sync { self.timer = timer }
        queue.asyncAfter(deadline: .now() + Self.settleTimeout) { [weak self] in self?.start.giveUp() }
    }

    /// The player's event, on the presenter thread.
    package func observe(_ event: PlayerEvent) {
        switch event {
        case .playback(.itemStarted(let reference), let index?, _):
            queue.async {
                self.playing = reference.isInsert ? nil : (index, reference.source)
                self.start.itemStarted(index: index)
            }
            // A new item is saved at once, not at the next tick: a cut soon after a seam then
            // resumes the item that was on screen. A moment later, once the player's snapshot
            // (which the save reads) shows it.
            queue.asyncAfter(deadline: .now() + Self.snapshotDelay) { self.saveIfChanged() }
        case .currentItemMoved(let index): queue.async { self.playing?.index = index }
        default: break
        }
    }

    /// The last save, on a clean stop (call before the player stops: its position is then
    /// still that of the item playing).
    package func finish() {
        queue.sync {
            saveIfChanged()
            timer?.cancel()
            timer = nil
        }
    }

    private func saveIfChanged() {
        guard start.isSettled, let player, let playing, player.currentItemIndex == playing.index else { return }
        let position = mode == .position ? player.currentTime.seconds : 0
        let state = ResumeState(config: configPath, index: playing.index, path: playing.source,
                                position: (position * 10).rounded() / 10, saved: Date())
        if let lastSaved, lastSaved.index == state.index, lastSaved.path == state.path,
           lastSaved.position == state.position {
            return
        }
        do {
            try AtomicFile.write(state.encoded(), to: path)
            lastSaved = state
            if loggedFailure != nil {
                logger.notice("resume: saving to \(path) again")
                loggedFailure = nil
            }
        } catch {
            if loggedFailure != "\(error)" {
                logger.error("resume: \(error); the place is not saved (playback goes on)")
                loggedFailure = "\(error)"
            }
        }
    }
}
