import Foundation
import Glibc
import KioskCore
import Logging
import SystemPackage

/// Watches the folders that directory and glob items name (inotify, one watch per folder) and,
/// once a burst of changes has settled, looks at their media files again: which are complete
/// (`FileSettling`: closed after writing, renamed in, or the same size for `playback.settle`
/// seconds) and which are still being written. `onLook` gets the paths not ready yet; the
/// reloader expands the items again without them and hands over a changed playlist.
///
/// The list of folders is asked for again every second (`directories`), so a folder that is
/// created, removed and created again, or that a reload of kiosk.conf adds, is watched
/// without a restart; a folder that cannot be watched is looked for again every second.
package final class FolderWatcher: @unchecked Sendable {
    // Safe to share: `settling` is guarded by `lock`; the rest is touched by the watch thread
    // only (the first look runs before that thread starts).
    private let lock = NSLock()
    private var settling: FileSettling
    private let logger: Logger
    /// Set by `start`, before the thread runs; read by it only.
    private var directories: @Sendable () -> [String] = { [] }
    private var onLook: @Sendable (Set<String>) -> Void = { _ in }
    private let thread = StoppableThread(name: "kiosk-folder-watch")

    /// Created, written, closed, renamed in or out, deleted, and the folder itself going away.
    private static let events = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
                                       | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB | IN_ONLYDIR)

    package init(settle: Double, logger: Logger) {
        settling = FileSettling(settle: settle)
        self.logger = logger
    }

    /// The files of `folders` not ready now, looked at on the caller's thread: before the
    /// watch thread starts (the playlist kiosk begins with leaves out a clip that is being
    /// copied while kiosk starts), and for a reload of kiosk.conf, which must not list a file
    /// that arrived since the watch thread's last look.
    package func notReady(in folders: [String]) -> Set<String> { look(folders).hidden }

    /// `directories`: the folders to watch now (asked every second); `onLook`: the files not
    /// ready after each look.
    package func start(directories: @escaping @Sendable () -> [String], onLook: @escaping @Sendable (Set<String>) -> Void) {
        self.directories = directories
        self.onLook = onLook
        thread.start { [self] in watch() }
    }

    /// Ends the watch thread (its poll wakes for it).
    package func stop() { thread.stop() }

    /// A reload changed `playback.settle`.
    package func setSettle(_ seconds: Double) { lock.withLock { settling.settle = seconds } }

    private var shouldStop: Bool { thread.shouldStop }

    private func watch() {
        guard let inotify = Inotify.opened(else: { [logger] error in
            logger.error("watched folders: cannot watch for new files (\(error)); SIGHUP still reads them again")
        }) else { return }
        var watches: [Int32: String] = [:]
        var unwatchable: Set<String> = []
        var debounce = ChangeDebounce(quiet: 0.25, longest: 2)
        var recheckAt: Double?
        var nextFolderCheck = 0.0
        while !shouldStop {
            let now = Self.now()
            if now >= nextFolderCheck {
                nextFolderCheck = now + 1
                if updateWatches(inotify, &watches, &unwatchable) { debounce.noteChange(at: now) }
            }
            var wake = nextFolderCheck
            for deadline in [debounce.deadline, recheckAt].compactMap({ $0 }) { wake = min(wake, deadline) }
            // Blocks until an event, the stop, or the next deadline (at most the second's look
            // at the folders asked for).
            var pollers = [pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0)]
            if thread.poll(&pollers, seconds: wake - Self.now()), note(inotify.readEvents(), watches: &watches) {
                debounce.noteChange(at: Self.now())
            }
            let due = debounce.takeIfDue(at: Self.now())
            if due || (recheckAt.map { Self.now() >= $0 } ?? false) {
                let result = look(Array(Set(watches.values)).sorted())
                recheckAt = result.recheckAt
                onLook(result.hidden)
            }
        }
    }

    /// Adds watches for folders not watched yet and drops those no longer asked for; true
    /// when a folder was added (it appeared, a glob matches a new one, a reload named it:
    /// its files may be new to the playlist).
    private func updateWatches(_ inotify: Inotify, _ watches: inout [Int32: String], _ unwatchable: inout Set<String>) -> Bool {
        let wanted = directories()
        var appeared = false
        for (descriptor, folder) in watches where !wanted.contains(folder) {
            inotify.removeWatch(descriptor)
            watches[descriptor] = nil
        }
        for folder in wanted where !watches.values.contains(folder) {
            let descriptor: Int32
            do {
                descriptor = try inotify.watch(folder, for: Self.events)
            } catch {
                if unwatchable.insert(folder).inserted {
                    logger.warning("watched folder \(folder): cannot watch it (\(Errno(rawValue: error.code).description)); looking again every second")
                }
                continue
            }
            watches[descriptor] = folder
            unwatchable.remove(folder)
            appeared = true
        }
        return appeared
    }

    /// Notes each event's meaning for the file it names; true when anything in a folder
    /// changed. A folder removed or moved away loses its watch (added again when it is back).
    private func note(_ events: [InotifyEvent], watches: inout [Int32: String]) -> Bool {
        var changed = false
        let now = Self.now()
        for event in events {
            // Events were lost (the kernel's queue overflowed): look at everything again.
            if event.has(IN_Q_OVERFLOW) { changed = true }
            guard let folder = watches[event.watch] else { continue }
            if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) {
                watches[event.watch] = nil
                changed = true
                continue
            }
            guard !event.name.isEmpty else { continue }
            // What can change a playlist: a media name (a temporary renamed to one included), a
            // playlist file's (an edit of it), a folder (globs, trees). Not a log written beside
            // them: a playlist file's folder is often /var/lib/kiosk, and each write there
            // expanded the items again.
            let isPlaylistFile = PlaylistFile.isNamed(event.name)
            if event.has(IN_ISDIR) || isPlaylistFile || WatchedFolders.isCandidate(name: event.name) { changed = true }
            guard WatchedFolders.isCandidate(name: event.name) else { continue }
            let path = WatchedFolders.path(in: folder, name: event.name)
            lock.withLock {
                if event.has(IN_CLOSE_WRITE) { settling.note(.closedAfterWrite, path: path, at: now) }
                else if event.has(IN_MOVED_TO) { settling.note(.movedIn, path: path, at: now) }
                else if event.has(IN_MODIFY | IN_CREATE) { settling.note(.written, path: path, at: now) }
            }
        }
        return changed
    }

    /// Every media file of `folders`, looked at: the ones not ready, and when to look again
    /// (the earliest moment a settling file may become ready).
    private func look(_ folders: [String]) -> (hidden: Set<String>, recheckAt: Double?) {
        var hidden = Set<String>(), seen = Set<String>()
        var recheckAt: Double?
        let now = Self.now(), wallNow = Date().timeIntervalSince1970
        lock.withLock {
            for folder in folders {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                for name in names where WatchedFolders.isCandidate(name: name) {
                    let path = WatchedFolders.path(in: folder, name: name)
                    seen.insert(path)
                    switch settling.look(at: path, observation: FileObservation.look(at: path), now: now, wallNow: wallNow) {
                    case .ready?, nil: break
                    case .empty?: hidden.insert(path)
                    case .settling(let until)?:
                        hidden.insert(path)
                        recheckAt = min(recheckAt ?? until, until)
                    }
                }
            }
            settling.keepOnly(seen)
        }
        return (hidden, recheckAt.map { $0 + 0.05 })
    }

    private static func now() -> Double { MonotonicClock.hostTime().seconds }
}
