import KioskCore
import KioskMedia
import Logging

/// The shared timeline of a synchronised player (`sync: epoch:`, README "Walls in frame sync"):
/// made from the list playing (each entry's length read from its file, as every box with the
/// same files reads it) and made again when the list or the epoch changes. The sequencer asks
/// it at each frame where to be (ItemSequencer+Timeline.swift).
final class TimelineFollower {
    private(set) var timeline: SyncTimeline?
    /// One play of each entry of the list the timeline was made from; nil: not on it.
    private(set) var playLengths: [MediaTime?] = []
    /// What the timeline was made from: a still's slot is `playback.image_duration` when the
    /// item names none, so a reload changing that makes it again too.
    private var madeFor: (epoch: Int64, imageDuration: MediaTime, entries: [PlaylistEntry])?
    /// The item a jump began: not steered again until its first frame is up.
    var jumpedTo: UInt64?
    /// When the last jump was made (host time): jumps are at most one a second, so an entry
    /// that fails after its probe cannot make the player reopen it at every frame.
    var lastJump: MediaTime?
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The timeline for `entries`; nil when none of them has a known length.
    func timeline(for entries: [PlaylistEntry], epoch: Int64, imageDuration: MediaTime) -> SyncTimeline? {
        if let madeFor, madeFor.epoch == epoch, madeFor.imageDuration == imageDuration, madeFor.entries == entries {
            return timeline
        }
        madeFor = (epoch, imageDuration, entries)
        playLengths = entries.map { Self.playLength(of: $0, imageDuration: imageDuration) }
        let slots = zip(entries, playLengths).map { entry, length in
            length.map { $0 * Rational(Int64(entry.repeatCount), 1) }
        }
        timeline = SyncTimeline(epochNanoseconds: epoch, slots: slots)
        for (entry, length) in zip(entries, playLengths) where length == nil || length == .zero {
            logger.warning("sync: item '\(entry.title)' has no fixed length (a stream without a `duration`, a capture device or a file that cannot be read): it is left out of the timeline")
        }
        if let timeline {
            let place = timeline.place(atRealtime: MonotonicClock.realtimeNanoseconds(atHost: MonotonicClock.hostTime()))
            logger.notice("sync: \(entries.count) items on a timeline from \(InstantText.text(nanoseconds: epoch)), one turn \(String(format: "%.3f", Double(timeline.loopLength) / 1e9)) s; now at item \(place.entry) + \(String(format: "%.3f", place.offset.seconds)) s")
        } else {
            logger.error("sync: no item has a known length: playing without the timeline")
        }
        return timeline
    }

    /// Reads the entry's length from its file (a still's from kiosk.conf; a stream's is its
    /// `duration`, what it is played for, not known to every box alike otherwise).
    static func playLength(of entry: PlaylistEntry, imageDuration: MediaTime) -> MediaTime? {
        if entry.isStillImage { return entry.playLength(mediaSeconds: nil, imageDuration: imageDuration) }
        if isStream(entry) { return entry.item.duration }
        guard case .file(let path) = entry.media, !CaptureSource.isCapture(path),
              let asset = try? Asset(source: path), let seconds = asset.info.durationSeconds else { return nil }
        return entry.playLength(mediaSeconds: seconds, imageDuration: imageDuration)
    }

    /// A live stream by its URL (rtsp, udp, srt...; HLS, live unless its playlist ends, which is
    /// known only once it is open): on the timeline by its `duration`, never moved within it. A
    /// file over HTTP, whose `duration` does not cut it, is not (it has no length every box knows).
    static func isStream(_ entry: PlaylistEntry) -> Bool {
        guard case .url(let url) = entry.media else { return false }
        return LiveSource.isLiveByScheme(url) || NetworkURL.pathExtension(of: url) == "m3u8"
    }
}
