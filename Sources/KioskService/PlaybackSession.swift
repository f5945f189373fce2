import Foundation
import KioskControl
import KioskCore
import KioskInput
import KioskPlayer
import KioskSystemd
import Logging

/// What `play` and `run` share once the player is made: input, signals, the service manager,
/// the wait, and the orderly end.
package enum PlaybackSession {
    /// Plays until the player finishes, a signal stops it, or `duration` seconds pass; then
    /// gives the screen back. `reload` runs on SIGHUP. `services` is what the control socket
    /// answers with (by default the player alone); `started` runs right after the player starts.
    /// `companions`: the other screens' engines of a separate layout, started after the player,
    /// stopped and their screens given back with it.
    /// True when a signal (SIGTERM, SIGINT) ended it: the user's stop, exit 0 whatever played.
    @discardableResult
    package static func run(_ player: QueuePlayer, on output: VideoOutput, input: InputConfig, duration: Double?,
                    logger: Logger, reload: (@Sendable () -> Void)? = nil, liveInput: LiveInput? = nil,
                    control: ControlServer? = nil, services: Services? = nil, startingAt point: PlaylistStartPoint? = nil,
                    companions: [Companion] = [], started: (() -> Void)? = nil) -> Bool {
        let service = ServiceSupervisor(player: player, notifier: SystemdNotifier(), logger: logger)
        if let contentSync = services?.contentSync { service.extraStatus = { contentSync.serviceStatus } }
        let abandoned = StopOutcome()
        let companionPlayers = companions.map(\.player)
        let signals = SignalWatcher(stop: { _ in
            abandoned.signalled()
            service.stopping()
            // A presenter stuck in a call cannot obey: the screen is given back regardless.
            if !player.stop() { abandoned.presenterIgnoredStop() }
            for companion in companionPlayers { _ = companion.stop() }
        }, reload: reload)
        // `run` hands in its own, which a reload of kiosk.conf's input section swaps.
        let inputService = liveInput ?? LiveInput(output: output, player: player, logger: logger)
        // A stop that came while the display was being opened: never start.
        if !signals.stoppedEarly {
            DisplayOpener.announce(output, logger: logger)
            control?.start(services ?? Services(player: player))
            player.start(at: point)
            for companion in companions {
                DisplayOpener.announce(companion.output, logger: logger)
                companion.player.start()
            }
            started?()
            service.start()
            inputService.apply(input)
            wait(for: player, until: duration.map { MonotonicClock().now() + $0 }, abandoned: abandoned)
        }
        service.stopping()
        if abandoned.isSet { logger.error("the presenter did not stop within 2 s; giving the screen back anyway") }
        // The console comes back first (the CRTC, mode and framebuffer that were there before):
        // it is what a person sees, and SIGTERM must be done within a second.
        for companion in companions { _ = companion.player.stop() }
        DisplayOpener.close(output, logger: logger)
        for companion in companions { DisplayOpener.close(companion.output, logger: logger) }
        inputService.stop()
        control?.stop()   // removes the socket file
        withExtendedLifetime(signals) {}
        return signals.stoppedEarly || abandoned.bySignal
    }

    /// Until the player ends, a stop it did not obey, or the deadline (then it is stopped).
    /// Asleep meanwhile: the first two signal `abandoned.attention`.
    private static func wait(for player: QueuePlayer, until deadline: Double?, abandoned: StopOutcome) {
        player.signalWhenFinished(abandoned.attention)
        // `hasFinished`, not a zero-timeout join: a signal's stop joins the presenter at the same
        // moment, and while it holds the end a join of ours would say "not yet" and sleep for good.
        while !player.hasFinished {
            if abandoned.isSet { return }
            let now = MonotonicClock().now()
            if let deadline, now >= deadline {
                if !player.stop() { abandoned.presenterIgnoredStop() }
                return
            }
            _ = abandoned.attention.wait(timeout: deadline.map { .now() + ($0 - now) } ?? .distantFuture)
        }
    }
}

/// Set from the signal thread: a signal asked for the stop; the presenter did not end after it.
private final class StopOutcome: @unchecked Sendable {
    // Safe to share: `ignored` and `signal` are only touched with `lock` held.
    private let lock = NSLock()
    private var ignored = false
    private var signal = false
    /// Signalled when playback ends or a stop was not obeyed: the session's wait wakes.
    let attention = DispatchSemaphore(value: 0)
    package func presenterIgnoredStop() {
        lock.withLock { ignored = true }
        attention.signal()
    }
    package var isSet: Bool { lock.withLock { ignored } }
    package func signalled() { lock.withLock { signal = true } }
    package var bySignal: Bool { lock.withLock { signal } }
}
