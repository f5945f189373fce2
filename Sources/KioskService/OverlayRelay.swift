import KioskCore
import KioskPlayer

/// Input's way to the player: each request goes on, then the overlay is told. Every touch or
/// key shows it (after the request, so a tap that pauses never shows the overlay with the
/// playing state first), and a scrub's seek (the only absolute seek input makes) moves its
/// bar with the finger. The control socket sends to the player directly, so scripted commands
/// do not pop the overlay up.
package final class OverlayRelay: PlayerRequestSink {
    package let player: QueuePlayer

    package init(_ player: QueuePlayer) {
        self.player = player
    }

    package var duration: MediaTime? { player.duration }
    package var rate: Rational { player.rate }

    package func send(_ request: PlayerRequest) {
        player.send(request)
        if case .seek(let time) = request {
            player.showOverlay(scrubbingTo: time)
        } else {
            player.showOverlay()
        }
    }
}
