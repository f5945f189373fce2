/// A playback session's SIGINT/SIGTERM (stop) and SIGHUP (reload) handlers, for as long as the
/// watcher lives. The signals themselves are taken by `SignalHub` from the start of the process,
/// so a stop before this exists is not lost (see `stoppedEarly`).
package final class SignalWatcher {
    /// A stop came before the session was ready to handle it: do not start playing.
    package let stoppedEarly: Bool

    package init(stop: @escaping @Sendable (Int32) -> Void, reload: (@Sendable () -> Void)? = nil) {
        stoppedEarly = SignalHub.shared.register(stop: stop, reload: reload)
    }

    deinit { SignalHub.shared.unregister() }
}
