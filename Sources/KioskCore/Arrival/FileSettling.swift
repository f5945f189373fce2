import Glibc

/// What the file system says of one file at one look (stat).
public struct FileObservation: Sendable, Equatable {
    public var size: Int64
    /// Modification time, wall-clock seconds since 1970.
    public var modified: Double
    public var inode: UInt64

    public init(size: Int64, modified: Double, inode: UInt64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    /// stat(2) of `path`, following links (as the expander does); nil for what is not a
    /// regular file (or nothing there).
    public static func look(at path: String) -> FileObservation? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return FileObservation(size: Int64(info.st_size), modified: modified, inode: UInt64(info.st_ino))
    }
}

/// What inotify said of a name in a watched folder.
public enum FileWriteEvent: Sendable, Equatable {
    /// Written to (IN_MODIFY) or created (IN_CREATE): a writer is at work.
    case written
    /// A writer closed it (IN_CLOSE_WRITE): `cp`, `scp`, an editor are done.
    case closedAfterWrite
    /// Renamed into the folder (IN_MOVED_TO): rsync and careful uploaders write a temporary
    /// name and rename it when complete.
    case movedIn
}

/// Whether a file in a watched folder may be played.
public enum FileReadiness: Sendable, Equatable {
    case ready
    /// Still being written, or written too recently to tell; looked at again at `until`.
    case settling(until: Double)
    /// Zero bytes: nothing to play (an upload that has only begun, a `touch`).
    case empty
}

/// Decides when a file that appears in a watched folder is complete, so a half-copied clip is
/// never played (pi_video_looper #60: its users saw files played while still copying).
///
/// A file is ready when its writer closed it or renamed it in and it has not been written since,
/// or when its size, modification time and inode have stayed the same for `settle` seconds (a
/// writer that keeps the file open and never closes it, or a change inotify could not report: a
/// network file system, a folder watched after the copy began). A file found at the first look
/// with no event seen (kiosk starting, a folder that came back) is ready when its modification
/// time is `settle` seconds old or more by the wall clock. Zero-byte files are never ready.
///
/// Pure: the watcher hands in events and looks (stat results) with the times they happened.
public struct FileSettling: Sendable {
    /// The default `settle`: long enough for a writer's pauses between blocks on a busy SD
    /// card, short enough that a dropped file plays on the next pass.
    public static let defaultSettle = 2.0

    /// Seconds of no change that make a file ready (`playback.settle`; a reload may change it).
    public var settle: Double
    private var states: [String: State] = [:]

    private struct State: Sendable {
        var observation: FileObservation?
        /// Monotonic seconds since which the file looked the same.
        var stableSince: Double
        /// The last event was a close after writing or a rename in.
        var writerDone = false
        /// An event was seen since kiosk began watching (so the mtime rule does not apply).
        var eventSeen = false
    }

    public init(settle: Double = FileSettling.defaultSettle) { self.settle = settle }

    /// inotify said `event` of `path` at `now` (monotonic seconds).
    public mutating func note(_ event: FileWriteEvent, path: String, at now: Double) {
        var state = states[path] ?? State(observation: nil, stableSince: now)
        state.eventSeen = true
        switch event {
        case .written:
            state.writerDone = false
            state.stableSince = now
        case .closedAfterWrite, .movedIn:
            state.writerDone = true
        }
        states[path] = state
    }

    /// The file at `path` looked like `observation` (nil: it is gone) at `now` (monotonic) and
    /// `wallNow` (wall clock, for the first look's modification-time rule).
    public mutating func look(at path: String, observation: FileObservation?, now: Double, wallNow: Double) -> FileReadiness? {
        guard let observation else {
            states[path] = nil
            return nil
        }
        var state = states[path] ?? State(observation: nil, stableSince: now)
        defer { states[path] = state }
        if let previous = state.observation, previous != observation {
            // Changed since the last look: it counts as stable from now, unless its writer said
            // it is done after this change (the close comes after the last write).
            state.stableSince = now
        } else if state.observation == nil, !state.eventSeen {
            // First seen without an event: judged by how old its last write is.
            let age = wallNow - observation.modified
            state.stableSince = now - max(0, min(age, settle))
        }
        state.observation = observation
        guard observation.size > 0 else { return .empty }
        if state.writerDone || now - state.stableSince >= settle { return .ready }
        return .settling(until: state.stableSince + settle)
    }

    /// Forgets every path not in `paths` (files that left the watched folders).
    public mutating func keepOnly(_ paths: Set<String>) {
        states = states.filter { paths.contains($0.key) }
    }
}
