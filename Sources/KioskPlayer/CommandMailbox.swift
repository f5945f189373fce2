import Foundation
import KioskCore

/// What other threads (keys, touch, the control socket, signals) ask of the player. The
/// presenter thread alone carries them out, so the player's state has one owner.
enum PlayerCommand: Sendable {
    /// A user's request (keys, touch, the control socket).
    case request(PlayerRequest)
    /// kiosk.conf changed: the engine's own settings, not a user's request; `entries` when
    /// the playlist changed too.
    case reload(PlayerSettings, entries: [PlaylistEntry]?)
    /// Input the overlay answers to (it never changes playback).
    case overlay(OverlayNote)
    /// Copy what is on screen (FramePresenter.captureScreen) for the thread that asked.
    case screenshot(ScreenshotRequest)
    case stop
}

/// A screenshot asked of the presenter thread, and its answer for the thread that asked.
final class ScreenshotRequest: @unchecked Sendable {
    // `answer` is written once on the presenter thread before `done` is signalled.
    private let done = DispatchSemaphore(value: 0)
    private var answer: Result<CapturedPicture, ScreenshotError>?

    func finish(_ answer: Result<CapturedPicture, ScreenshotError>) {
        self.answer = answer
        done.signal()
    }

    /// The presenter's answer, or a failure if it gave none within `timeout` seconds.
    func wait(timeout: Double) -> Result<CapturedPicture, ScreenshotError> {
        guard done.wait(timeout: .now() + timeout) == .success, let answer else {
            return .failure(ScreenshotError(description: "the player did not answer within \(Int(timeout)) s"))
        }
        return answer
    }
}

/// The commands waiting for the presenter, and the presenter's way to sleep until a frame is
/// due while still waking at once for a command.
final class CommandMailbox: @unchecked Sendable {
    // Safe to share: `pending` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var pending: [PlayerCommand] = []
    /// Only the presenter takes commands and sleeps here: each time it does is a sign of life
    /// for the service watchdog.
    let heartbeat = PresenterHeartbeat()

    func post(_ command: PlayerCommand) {
        condition.withLock {
            pending.append(command)
            condition.broadcast()
        }
    }

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
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining))
        }
    }
}
