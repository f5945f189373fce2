import Foundation
import KioskControl
import KioskCore
import KioskPlayer
import Logging

/// Proof of play and resume for `kiosk run`: both observe the player's events, and both need
/// to know the requests the schedule and the control socket send (why an item was left,
/// which list plays). Made before the player, since its event handler is given at init.
final class OperationsWiring: @unchecked Sendable {
    // Safe to share: both are set once in init and are thread-safe themselves.
    let proofOfPlay: ProofOfPlayWriter?
    let resume: ResumeKeeper?

    init(config: KioskConfig, configPath: String, stateDirectory: String, entries: [PlaylistEntry], logger: Logger) {
        proofOfPlay = config.logging.proofOfPlayPath.map { path in
            logger.info("proof of play: \(path) (rotated at \(config.logging.proofOfPlayLimit) bytes)")
            return ProofOfPlayWriter(logging: config.logging, entries: entries, logger: logger)
        }
        if config.playback.resume == .off {
            resume = nil
        } else {
            let absolute = URL(fileURLWithPath: configPath).standardizedFileURL.path
            resume = ResumeKeeper(mode: config.playback.resume, directory: stateDirectory, configPath: absolute,
                                  entries: entries, logger: logger)
        }
    }

    /// The player's event handler: `next` (the control socket's and CEC's) and then ours.
    func handler(then next: (@Sendable (PlayerEvent) -> Void)?) -> (@Sendable (PlayerEvent) -> Void)? {
        guard proofOfPlay != nil || resume != nil else { return next }
        return { [proofOfPlay, resume] event in
            next?(event)
            proofOfPlay?.observe(event)
            resume?.observe(event)
        }
    }

    /// Called by the request taps before the player gets `request`.
    func noteRequest(_ request: PlayerRequest) {
        proofOfPlay?.noteRequest(request)
        resume?.noteRequest(request)
    }

    /// A reload handed the player a new default playlist.
    func noteReloaded(_ entries: [PlaylistEntry]) {
        proofOfPlay?.noteReloaded(entries)
        resume?.noteReloaded(entries)
    }

    /// A clean stop: the place saved while the player still knows it; then plays closed.
    func playerStopping() { resume?.finish() }
    func finish() { proofOfPlay?.finish() }
}

/// A request sink that tells `wiring` what passes (the schedule's requests).
final class NotedSink: PlayerRequestSink, @unchecked Sendable {
    // Safe to share: both are immutable and thread-safe.
    private let player: QueuePlayer
    private let wiring: OperationsWiring

    init(_ player: QueuePlayer, noting wiring: OperationsWiring) {
        self.player = player
        self.wiring = wiring
    }

    func send(_ request: PlayerRequest) {
        wiring.noteRequest(request)
        player.send(request)
    }
    var duration: MediaTime? { player.duration }
    var rate: Rational { player.rate }
}

/// The player as the control socket sees it, telling `wiring` of each request it sends.
final class NotedControlledPlayer: ControlledPlayer, @unchecked Sendable {
    // Safe to share: both are immutable and thread-safe.
    private let player: QueuePlayer
    private let wiring: OperationsWiring

    init(_ player: QueuePlayer, noting wiring: OperationsWiring) {
        self.player = player
        self.wiring = wiring
    }

    func send(_ request: PlayerRequest) {
        wiring.noteRequest(request)
        player.send(request)
    }
    var duration: MediaTime? { player.duration }
    var rate: Rational { player.rate }
    var status: PlayerItemStatus { player.status }
    var timeControlStatus: TimeControlStatus { player.timeControlStatus }
    var currentTime: MediaTime { player.currentTime }
    var defaultRate: Rational { player.defaultRate }
    var volume: Int { player.volume }
    var isMuted: Bool { player.isMuted }
    var playlistCount: Int { player.playlistCount }
    var currentItemIndex: Int? { player.currentItemIndex }
    var currentItemTitle: String? { player.currentItemTitle }
    var framesPresented: Int { player.framesPresented }
    var framesDropped: Int { player.framesDropped }
    var isDisplayOn: Bool { player.isDisplayOn }
    func saveScreenshot(to path: String) throws { try player.saveScreenshot(to: path) }
}
