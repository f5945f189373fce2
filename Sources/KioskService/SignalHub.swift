import Foundation
import Glibc
import KioskCore

/// The process's one receiver of SIGINT, SIGTERM and SIGHUP, installed first thing in `main`.
///
/// Why not a handler installed when playback starts: a stop that came while the display was
/// being opened used to find the default action still in place and killed kiosk (143) with the
/// console never given back. Here the three signals are blocked in the main thread before any
/// other thread exists, so every thread kiosk, FFmpeg, ALSA or Dispatch starts inherits the
/// block and none of them can be killed by one; a dedicated thread takes them with `sigwait`,
/// outside signal-handler context, and acts on them:
/// - before a playback session claims them (`holdStops`), a stop is remembered and carried out
///   as soon as the session registers (the player never starts; exit 0);
/// - commands that do not play (`check`, `probe`, `snapshot`, `bench`) keep the usual meaning:
///   a stop ends the process at once with 128 + the signal's number;
/// - SIGHUP before a session, or in a command that does not reload, is ignored.
package final class SignalHub: @unchecked Sendable {
    // Safe to share: every field is read and written with `lock` (the condition) held.
    package static let shared = SignalHub()

    package enum Mode { case undecided, holdStops, exitOnStop }

    private let lock = NSCondition()
    /// Handlers running now on the signal thread (`unregister` waits for them).
    private var running = 0
    private var mode = Mode.undecided
    private var pendingStop: Int32?
    private var stopHandler: (@Sendable (Int32) -> Void)?
    private var reloadHandler: (@Sendable () -> Void)?
    private static let watched = [SIGINT, SIGTERM, SIGHUP]

    private init() {}

    /// Blocks the signals and starts the receiving thread. Call once, before anything else.
    package func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in Self.watched { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        WorkerThread.start(name: "kiosk-signals") { [self, set] in
            var waitSet = set
            var number: Int32 = 0
            while true {
                guard sigwait(&waitSet, &number) == 0 else { continue }
                receive(number)
            }
        }
    }

    /// `run` and `play`: stops wait for the session (they restore the screen and exit 0).
    package func holdStops() {
        lock.withLock { mode = .holdStops }
    }

    /// The other commands: a stop ends the process; one that came while parsing does it now.
    package func exitOnStop() {
        let pending = lock.withLock { () -> Int32? in
            mode = .exitOnStop
            return pendingStop
        }
        if let pending { exit(128 + pending) }
    }

    /// The session's handlers. Returns true if a stop arrived before them: the caller then
    /// does not start playing and ends the session at once.
    @discardableResult
    package func register(stop: @escaping @Sendable (Int32) -> Void, reload: (@Sendable () -> Void)?) -> Bool {
        let pending = lock.withLock { () -> Int32? in
            stopHandler = stop
            reloadHandler = reload
            return pendingStop
        }
        return pending != nil
    }

    /// After the session: later signals find no handler; the process is ending anyway. A
    /// handler still running (a stop returns just after the player ended) is waited for, up
    /// to 3 s, so no thread is inside the session's objects when the process exits.
    package func unregister() {
        let deadline = Date(timeIntervalSinceNow: 3)
        lock.withLock {
            stopHandler = nil
            reloadHandler = nil
            while running > 0 && lock.wait(until: deadline) {}
        }
    }

    /// True once a stop came, handled or not.
    package var stopRequested: Bool { lock.withLock { pendingStop != nil } }

    /// The first stop's signal number (SIGINT, SIGTERM), nil before one came.
    package var stopSignal: Int32? { lock.withLock { pendingStop } }

    private func receive(_ number: Int32) {
        var handler: (() -> Void)?
        lock.lock()
        let mode = self.mode
        if number == SIGHUP {
            handler = reloadHandler
        } else {
            if pendingStop == nil { pendingStop = number }
            if let stop = stopHandler { handler = { stop(number) } }
        }
        if handler != nil { running += 1 }
        lock.unlock()
        guard handler != nil else {
            if number != SIGHUP && mode == .exitOnStop { exit(128 + number) }
            // A stop in .holdStops or .undecided is remembered: `register` or `exitOnStop`
            // acts on it. A SIGHUP without a session has nothing to reload.
            return
        }
        handler?()
        handler = nil   // released before `unregister` may return
        lock.withLock {
            running -= 1
            lock.broadcast()
        }
    }
}
