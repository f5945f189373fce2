import KioskCore
import KioskInput
import KioskPlayer

/// What input asks of the player, then the overlay told: every touch or key shows it (after
/// the request, so a tap that pauses never shows the overlay with the playing state first),
/// and a scrub's seek (the only absolute seek input makes) moves its bar with the finger.
/// The control socket talks to the player directly, so scripted commands do not pop it up.
final class OverlayRelay: PlayerControls {
    let player: QueuePlayer

    init(_ player: QueuePlayer) { self.player = player }

    var duration: MediaTime? { player.duration }
    var rate: Rational { player.rate }

    func play() { player.play(); player.showOverlay() }
    func pause() { player.pause(); player.showOverlay() }
    func togglePlayPause() { player.togglePlayPause(); player.showOverlay() }
    func seek(to time: MediaTime) { player.seek(to: time); player.showOverlay(scrubbingTo: time) }
    func skip(by delta: MediaTime) { player.skip(by: delta); player.showOverlay() }
    func adjustVolume(by delta: Int) { player.adjustVolume(by: delta); player.showOverlay() }
    func toggleMute() { player.toggleMute(); player.showOverlay() }
    func advanceToNextItem() { player.advanceToNextItem(); player.showOverlay() }
    func returnToPreviousItem() { player.returnToPreviousItem(); player.showOverlay() }
}
