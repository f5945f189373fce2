import KioskCore
import KioskInput
import KioskPlayer

/// What input asks of the player, with the overlay told first: every touch or key shows it,
/// and a scrub's seek (the only absolute seek input makes) moves its bar with the finger.
/// The control socket talks to the player directly, so scripted commands do not pop it up.
final class OverlayRelay: PlayerControls {
    let player: QueuePlayer

    init(_ player: QueuePlayer) { self.player = player }

    var duration: MediaTime? { player.duration }
    var rate: Rational { player.rate }

    func play() { player.showOverlay(); player.play() }
    func pause() { player.showOverlay(); player.pause() }
    func togglePlayPause() { player.showOverlay(); player.togglePlayPause() }
    func seek(to time: MediaTime) { player.showOverlay(scrubbingTo: time); player.seek(to: time) }
    func skip(by delta: MediaTime) { player.showOverlay(); player.skip(by: delta) }
    func adjustVolume(by delta: Int) { player.showOverlay(); player.adjustVolume(by: delta) }
    func toggleMute() { player.showOverlay(); player.toggleMute() }
    func advanceToNextItem() { player.showOverlay(); player.advanceToNextItem() }
    func returnToPreviousItem() { player.showOverlay(); player.returnToPreviousItem() }
}
