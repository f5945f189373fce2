import KioskCore

/// Where the demux thread stops reading an item trimmed with `end:`.
///
/// The frames and sound at or after `end` were dropped, but the file was read and decoded to
/// its real end first, and the presenter waits for that end before the next item: a 1 s clip
/// cut from a long file held its last picture while the rest was decoded. A packet decoded at
/// or after `end` shows nothing before it (its PTS is at least its DTS), so once each stream
/// read (video, sound) has had one, nothing more is needed. The streams of a file are
/// interleaved, not in step, hence each its own; and a stream that stops early (sound shorter
/// than the picture) would leave the others waiting, so any packet `slack` past `end` also
/// ends the reading.
struct TrimCutoff {
    static let slack = MediaTime(value: 5, timescale: 1)
    let end: MediaTime
    private let streams: Set<Int>
    private var waiting: Set<Int>

    init(end: MediaTime, streams: [Int]) {
        self.end = end
        self.streams = Set(streams)
        waiting = self.streams
    }

    /// Whether the reading ends at a packet of `stream` decoded at `decodeTime` (nil: unknown,
    /// which ends nothing).
    mutating func isReached(stream: Int, decodeTime: MediaTime?) -> Bool {
        guard let decodeTime, decodeTime >= end else { return false }
        waiting.remove(stream)
        return waiting.isEmpty || decodeTime >= end + Self.slack
    }

    /// Read again from an earlier place (a seek).
    mutating func restart() {
        waiting = streams
    }
}
