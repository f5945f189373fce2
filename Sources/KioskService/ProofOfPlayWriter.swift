import Foundation
import KioskCore
import KioskPlayer
import Logging
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Proof of play for `kiosk run` (`logging.proof_of_play`): observes the player's events
/// (items with their sources, and the playlist requests it carried out, which say why an item
/// was left), and appends one JSON line per play. Everything after the event
/// arrives runs on a queue of its own: the presenter thread only hands the event over, never
/// waits for the disk.
package final class ProofOfPlayWriter: PlayerEventObserver, @unchecked Sendable {
    // Safe to share: every mutable field is touched only on `queue`.
    private let queue = DispatchQueue(label: "kiosk-proof-of-play")
    private var recorder = PlayRecorder()
    private let rotation: LogRotation
    private let logger: Logger
    private var fd: FileDescriptor?
    private var size = 0
    /// The last failure logged, so an unwritable path is one line, not one per play.
    private var loggedFailure: String?
    /// The source of the item that failed last: the skip that follows names it by index only.
    private var lastFailedSource = ""

    /// Told each line as it is written (MQTT's plays topic); it must only queue.
    private let recorded: (@Sendable (String) -> Void)?

    package init(logging: LoggingConfig, logger: Logger, recorded: (@Sendable (String) -> Void)? = nil) {
        rotation = LogRotation(path: logging.proofOfPlayPath ?? "", limit: logging.proofOfPlayLimit)
        self.logger = logger
        self.recorded = recorded
    }

    /// The player's event, on the presenter thread: only the few kinds a play is made of are
    /// queued (not the periodic time ticks).
    package func observe(_ event: PlayerEvent) {
        let now = Self.now()
        switch event {
        case .playback(.itemStarted(let reference), let index?, _):
            queue.async { self.feed(.started(reference, index: index, source: reference.source), at: now) }
        case .playback(.itemEnded(let reference), _, _): queue.async { self.feed(.ended(reference), at: now) }
        case .playback(.itemFailed(let reference, let reason), _, _):
            queue.async {
                self.lastFailedSource = reference.source
                self.feed(.failed(reference, reason: reason), at: now)
            }
        case .itemSkipped(let index, let reason):
            queue.async { self.feed(.skipped(index: index, source: self.lastFailedSource, reason: reason), at: now) }
        case .displayPower(let on): queue.async { self.feed(.displayPower(on: on), at: now) }
        case .playlistRequest(let request): queue.async { self.feed(.requested(request), at: now) }
        default: break
        }
    }

    /// kiosk stops: what plays is recorded as interrupted and the file closed.
    package func finish() {
        let now = Self.now()
        queue.sync {
            feed(.stopping, at: now)
            try? fd?.close()
            fd = nil
        }
    }

    private static func now() -> PlayInstant {
        PlayInstant(wall: Date(), monotonic: MonotonicClock().now())
    }

    private func feed(_ observation: PlayObservation, at now: PlayInstant) {
        for record in recorder.observe(observation, at: now) {
            let line = record.jsonLine()
            append(line + "\n")
            recorded?(line)
        }
    }

    private func append(_ line: String) {
        let bytes = Array(line.utf8)
        do {
            if fd != nil, rotation.needsRotation(currentSize: size, adding: bytes.count) { try rotate() }
            let file = try fd ?? openFile()
            do { _ = try file.writeAll(bytes) } catch { throw AtomicFile.Failure(step: "cannot write", path: rotation.path, error) }
            size += bytes.count
            // A play is evidence someone pays for: on disk before the next one begins.
            _ = fdatasync(file.rawValue)
            if loggedFailure != nil {
                logger.notice("proof of play: writing to \(rotation.path) again")
                loggedFailure = nil
            }
        } catch {
            try? fd?.close()
            fd = nil
            let text = "\(error)"
            if loggedFailure != text {
                logger.error("proof of play: \(text); plays are not recorded until it can be written (playback goes on)")
                loggedFailure = text
            }
        }
    }

    private func openFile() throws -> FileDescriptor {
        let opened: FileDescriptor
        do {
            opened = try FileDescriptor.open(rotation.path, .writeOnly, options: [.append, .create, .closeOnExec],
                                             permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw AtomicFile.Failure(step: "cannot open", path: rotation.path, error)
        }
        var status = stat()
        size = fstat(opened.rawValue, &status) == 0 ? Int(status.st_size) : 0
        fd = opened
        return opened
    }

    private func rotate() throws {
        try? fd?.close()
        fd = nil
        for step in rotation.renames where rename(step.from, step.to) != 0 && errno != ENOENT {
            throw AtomicFile.Failure(step: "cannot rotate to", path: step.to, code: errno)
        }
        _ = try openFile()
    }
}
