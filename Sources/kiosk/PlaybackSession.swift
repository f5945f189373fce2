import KioskControl
import KioskCore
import KioskInput
import KioskPlayer
import Logging

/// What `play` and `run` share once the player is made: input, signals, the wait, and the
/// orderly end.
enum PlaybackSession {
    /// Plays until the player finishes, a signal stops it, or `duration` seconds pass; then
    /// gives the screen back. `reload` runs on SIGHUP.
    static func run(_ player: QueuePlayer, on output: VideoOutput, input: InputConfig, duration: Double?,
                    logger: Logger, reload: (@Sendable () -> Void)? = nil, liveInput: LiveInput? = nil,
                    control: ControlServer? = nil) {
        let signals = SignalWatcher(stop: { _ in player.stop() }, reload: reload)
        control?.start(player: player)
        player.start()
        // `run` hands in its own, which a reload of kiosk.conf's input section swaps.
        let inputService = liveInput ?? LiveInput(output: output, player: player, logger: logger)
        inputService.apply(input)
        if let duration {
            if !player.waitUntilFinished(timeout: duration) { player.stop() }
        } else {
            player.waitUntilFinished()
        }
        // The console comes back first (the CRTC, mode and framebuffer that were there before):
        // it is what a person sees, and SIGTERM must be done within a second.
        DisplayOpener.close(output, logger: logger)
        inputService.stop()
        control?.stop()   // removes the socket file
        withExtendedLifetime(signals) {}
    }
}
