import Foundation
import KioskCore

/// What other threads (keys, touch, the control socket, signals) ask of the player. The
/// presenter thread alone carries them out, so the player's state has one owner.
enum PlayerCommand: Sendable {
    /// A user's request (keys, touch, the control socket); `answer`, when set, hears whether
    /// the engine carried it out (`QueuePlayer.perform`: the socket's reply).
    case request(PlayerRequest, answer: PresenterAnswer<PlayerRefusal?>?)
    /// kiosk.conf changed: the engine's own settings, not a user's request; `entries` when
    /// the playlist changed too.
    case reload(PlayerSettings, entries: [PlaylistEntry]?)
    /// kiosk.conf's overrides to open ahead (`ArmedOverrides`).
    case armOverrides([OverrideToArm])
    /// Input the overlay answers to (it never changes playback).
    case overlay(OverlayNote)
    /// Copy what is on screen (FramePresenter.beginCapture) for the thread that asked;
    /// `composed`: from kiosk's own buffers (the display's read-back came too late).
    case screenshot(ScreenshotRequest, composed: Bool = false)
    case stop
}

/// A screenshot asked of the presenter thread, and its answer for the thread that asked.
typealias ScreenshotRequest = PresenterAnswer<Result<CapturedPicture, ScreenshotError>>

/// An answer the presenter thread gives to a thread that waits for it (a screenshot, a request's
/// outcome): written once, then signalled.
final class PresenterAnswer<Value: Sendable>: @unchecked Sendable {
    // `answer` is written once on the presenter thread before `done` is signalled; `abandoned`
    // under `lock`.
    private let done = DispatchSemaphore(value: 0)
    private var answer: Value?
    private let lock = NSLock()
    private var abandoned = false
    /// When the asker stops waiting (monotonic host seconds), if it said: work done for the
    /// answer on another thread (a read-back's wait) leaves the presenter time to answer.
    let deadline: Double?

    init(deadline: Double? = nil) { self.deadline = deadline }

    func finish(_ answer: Value) {
        self.answer = answer
        done.signal()
    }

    /// The presenter's answer, or nil if it gave none within `timeout` seconds: then nobody
    /// waits for it any more (`isAbandoned`).
    func wait(timeout: Double) -> Value? {
        guard done.wait(timeout: .now() + timeout) == .success else {
            lock.withLock { abandoned = true }
            return nil
        }
        return answer
    }

    /// Whether the asker stopped waiting: work done only for the answer (a screenshot's read-back,
    /// which on a slow driver holds the presenter seconds) is not worth doing then.
    var isAbandoned: Bool { lock.withLock { abandoned } }
}

/// The commands waiting for the presenter, and the presenter's way to sleep until a frame is
/// due while still waking at once for a command.
final class CommandMailbox: @unchecked Sendable {
    // Safe to share: `pending` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var pending: [PlayerCommand] = []
    /// Whether a presenter loop runs to take commands (between `serve(true)` and `serve(false)`).
    private var served = false
    /// Only the presenter takes commands and sleeps here: each time it does is a sign of life
    /// for the service watchdog.
    let heartbeat = PresenterHeartbeat()

    /// Queues `command`; returns whether a presenter loop runs to take it (before playback
    /// starts a command waits for it, after it ended nobody takes it).
    @discardableResult
    func post(_ command: PlayerCommand) -> Bool {
        condition.withLock {
            pending.append(command)
            condition.broadcast()
            return served
        }
    }

    /// The presenter loop starts or ends taking commands. At its end the requests still queued
    /// are answered (nobody will carry them out), so no thread waits for them in vain.
    func serve(_ on: Bool) {
        let left: [PlayerCommand] = condition.withLock {
            served = on
            return on ? [] : pending
        }
        for case .request(_, let answer?) in left { answer.finish(PlayerRefusal("playback has ended")) }
        for case .screenshot(let request, _) in left { request.finish(.failure(ScreenshotError(description: "playback has ended"))) }
    }

    /// Whether a command waits (the presenter asks before it commits a frame it held).
    var hasPending: Bool { condition.withLock { !pending.isEmpty } }

    func takeAll() -> [PlayerCommand] {
        heartbeat.beat()
        return condition.withLock {
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Sleeps until the monotonic clock reads `host` or a command arrives.
    func wait(untilHost host: MediaTime) {
        heartbeat.sleeping(until: host.seconds)
        defer { heartbeat.beat() }
        condition.lock(); defer { condition.unlock() }
        while pending.isEmpty {
            let remaining = (host - MonotonicClock.hostTime()).seconds
            if remaining <= 0 { return }
            _ = condition.wait(until: conditionDeadline(in: remaining))
        }
    }
}
