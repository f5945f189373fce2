import Foundation
import Glibc
import KioskCore
import Logging
import SystemPackage

/// Watches kiosk.conf with inotify and calls `onChange` once a burst of changes has settled.
/// It watches the file's directory and filters by name, not the file itself: editors save by
/// writing a temp file and renaming it over (vim, nano's backup, `sed -i`), which leaves a
/// watch on the old inode seeing nothing; `cp` and delete+recreate are seen the same way.
/// A directory that vanishes (an unmounted stick, `rm -r`) is looked for again every second.
package final class ConfigFileWatcher: @unchecked Sendable {
    // Safe to share: the thread is; everything else is touched by the watch thread only (or
    // is immutable).
    private let directory: String
    private let fileName: String
    private let logger: Logger
    private let onChange: @Sendable () -> Void
    private let thread = StoppableThread(name: "kiosk-config-watch")

    /// What the directory watch listens for: the file's content written, the file replaced
    /// (renamed over, created, deleted), and the directory itself going away.
    private static let events = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE
                                       | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB)

    package init(path: String, logger: Logger, onChange: @escaping @Sendable () -> Void) {
        let url = URL(fileURLWithPath: path)
        directory = url.deletingLastPathComponent().path
        fileName = url.lastPathComponent
        self.logger = logger
        self.onChange = onChange
    }

    package func start() {
        thread.start { [self] in watch() }
    }

    /// Ends the watch thread (its poll wakes for it).
    package func stop() { thread.stop() }

    private var shouldStop: Bool { thread.shouldStop }

    private func watch() {
        guard let inotify = Inotify.opened(else: { [self] error in
            logger.error("\(directory)/\(fileName): cannot watch for changes (\(error)); SIGHUP still reloads")
        }) else { return }
        var watchDescriptor: Int32 = -1
        var debounce = ChangeDebounce()
        var reportedMissing = false
        while !shouldStop {
            if watchDescriptor < 0 {
                do {
                    watchDescriptor = try inotify.watch(directory, for: Self.events)
                } catch {
                    if !reportedMissing {
                        logger.warning("\(directory): cannot watch it (\(Errno(rawValue: error.code).description)); looking again every second")
                        reportedMissing = true
                    }
                    thread.sleep(seconds: 1)
                    continue
                }
                if reportedMissing {
                    // It is back, and so may the file be: read it.
                    reportedMissing = false
                    debounce.noteChange(at: Self.now())
                }
            }
            // Blocks until an event, the stop, or a settling burst's deadline: nothing wakes
            // an idle box.
            var pollers = [pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0)]
            if thread.poll(&pollers, seconds: debounce.deadline.map { $0 - Self.now() }) {
                let (changed, gone) = look(at: inotify.readEvents(), watching: watchDescriptor)
                if changed { debounce.noteChange(at: Self.now()) }
                if gone {
                    // The directory was removed or moved away: the watch died with it.
                    inotify.removeWatch(watchDescriptor)
                    watchDescriptor = -1
                }
            }
            if debounce.takeIfDue(at: Self.now()) { onChange() }
        }
    }

    /// Whether any event names the file, and whether the watched directory itself is gone.
    private func look(at events: [InotifyEvent], watching descriptor: Int32) -> (changed: Bool, gone: Bool) {
        var changed = false, gone = false
        for event in events {
            if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED), event.watch == descriptor {
                gone = true
                changed = true
            } else if event.name == fileName {
                changed = true
            }
        }
        return (changed, gone)
    }

    private static func now() -> Double { MonotonicClock.hostTime().seconds }
}
