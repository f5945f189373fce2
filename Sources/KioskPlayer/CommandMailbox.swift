import Foundation
import KioskCore

/// What other threads (keys, touch, the control socket, signals) ask of the player. The
/// presenter thread alone carries them out, so the player's state has one owner.
enum PlayerCommand: Sendable {
    case input(PlaybackInput)
    case next
    case previous
    case jump(to: Int)
    case replace(entries: [PlaylistEntry])
    case stop
}

/// The commands waiting for the presenter, and the presenter's way to sleep until a frame is
/// due while still waking at once for a command.
final class CommandMailbox: @unchecked Sendable {
    // Safe to share: `pending` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var pending: [PlayerCommand] = []

    func post(_ command: PlayerCommand) {
        condition.withLock {
            pending.append(command)
            condition.broadcast()
        }
    }

    func takeAll() -> [PlayerCommand] {
        condition.withLock {
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Sleeps until the monotonic clock reads `host` or a command arrives.
    func wait(untilHost host: MediaTime) {
        condition.lock(); defer { condition.unlock() }
        while pending.isEmpty {
            let remaining = (host - HostClock.now()).seconds
            if remaining <= 0 { return }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining))
        }
    }
}

/// CLOCK_MONOTONIC as `MediaTime`: what flip events and the playback clock count in.
enum HostClock {
    static func now() -> MediaTime {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MediaTime(hostNanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    static func from(seconds: Double) -> MediaTime {
        MediaTime(hostNanoseconds: Int64((seconds * 1e9).rounded()))
    }
}
