/// Notices a picture that froze while the player says it plays (issue 12). On a signage box a
/// frozen picture is the worst failure: nothing crashes, so nothing restarts it, and nobody is
/// in front of the screen. The engine ends such a local item as failed and the playlist goes
/// on; the service watchdog is not fed while progress is overdue (`overdueSince`).
///
/// Progress is a new frame on screen, sound heard further, or the item's decoder at work (it
/// queued a frame, or took a packet on its way to the first frame after an open or a seek):
/// a box too slow for its file, or loaded by something else, takes seconds over a first frame
/// without anything being stuck, and skipping the item would not make the next one faster
/// (CI, 2026-11-29: an emulated guest under load skipped a healthy 864x480 clip 5.2 s after it
/// opened). The decoder's work counts for at most `openingAllowance` after the last frame
/// shown or sound heard: a damaged file it chews on without a picture is still ended. A reader
/// blocked on a dead mount or a decoder that hangs stops the count at once, and so does a
/// decoder whose frames are not taken (its queue is bounded). While progress is expected (the
/// item should be playing), it is overdue from the last progress, or from the moment the
/// presenter's awaited frame (or a still's end) is due when it waits for one, but never later
/// than `longestWait` after the last progress: a frame announced for an hour from now is not a
/// reason to wait an hour. Pure, with host times (CLOCK_MONOTONIC) passed in.
public struct StallGuard: Sendable, Equatable {
    /// kiosk.conf `playback.stall_timeout`'s default: a few seconds, well inside the service
    /// watchdog's half period (10 s), so a stalled item is skipped before systemd would act.
    public static let defaultTimeout = MediaTime(value: 5, timescale: 1)
    /// Shorter would end items on a decoder's hiccup at a seek.
    public static let shortestTimeout = MediaTime(value: 1, timescale: 1)

    /// How long an item may take to open before the count begins: opening is not playing. A
    /// capture device's first open loads libavdevice and its hundred libraries (seconds from a
    /// slow card, or over 9p in the test bed's guest), a probe reads a slow disk. An item that
    /// has not opened after this counts as stalled from then on (`timeout` later it is ended),
    /// so a device or disk that never answers still cannot hold the playlist.
    public static let openingAllowance = MediaTime(value: 10, timescale: 1)

    public var timeout: MediaTime
    /// When the item on screen was first seen unopened; nil once it opened (or for the next).
    public private(set) var openingSince: MediaTime?
    /// The last progress, or when progress began to be expected; nil while none is expected.
    public private(set) var lastProgress: MediaTime?
    /// The last progress seen or heard (not the decoder's), or when it began to be expected.
    private var lastShown: MediaTime?
    /// When what the presenter waits for is due, as far as it is believed.
    private var awaitedDue: MediaTime?
    /// The decoder's count of steps at the last look (`decoderWorked`).
    private var decoderSteps: Int?

    public init(timeout: MediaTime = StallGuard.defaultTimeout) {
        self.timeout = timeout
    }

    /// Progress is expected from `host` on (the item should be playing); the count goes on
    /// when it was already expected.
    public mutating func expectProgress(at host: MediaTime) {
        if lastProgress == nil {
            lastProgress = host
            lastShown = host
        }
    }

    /// No progress is expected (paused, waiting for a network stream, nothing playing): the
    /// count starts afresh when it is expected again.
    public mutating func standDown() {
        lastProgress = nil
        lastShown = nil
        awaitedDue = nil
    }

    /// A new frame went on screen, or the sound was heard further, or something was started
    /// afresh (a new item, a seek).
    public mutating func progressed(at host: MediaTime) {
        lastProgress = host
        lastShown = host
        awaitedDue = nil
    }

    /// The item's decoder has taken `steps` steps in all (packets taken, frames given; a count
    /// that only grows for one item), seen at `host`: a change since the last look is progress,
    /// while progress is expected, up to `openingAllowance` after the last frame shown or sound
    /// heard. The first look at an item's count is not.
    public mutating func decoderWorked(steps: Int, at host: MediaTime) {
        defer { decoderSteps = steps }
        guard lastProgress != nil, let previous = decoderSteps, steps > previous,
              host - (lastShown ?? host) < Self.openingAllowance else { return }
        lastProgress = host
        awaitedDue = nil
    }

    /// The presenter waits for something due at `due` (a decoded frame, a still's end), which
    /// is believed up to `longestWait` after the last progress (nil: always, e.g. a still's
    /// configured duration).
    public mutating func awaiting(dueAt due: MediaTime, longestWait: MediaTime?) {
        guard let last = lastProgress else { return }
        var believed = due
        if let longestWait, believed > last + longestWait { believed = last + longestWait }
        awaitedDue = believed
    }

    /// The item on screen has not opened yet, seen at `host`: whether its `openingAllowance`
    /// (from the first time it was seen unopened) still runs, during which no progress is due.
    public mutating func opening(at host: MediaTime) -> Bool {
        if openingSince == nil { openingSince = host }
        return host - (openingSince ?? host) < Self.openingAllowance
    }

    /// The item on screen has opened, or another item took its place: its allowance is over
    /// (the next unopened item gets one of its own).
    public mutating func opened() {
        openingSince = nil
    }

    /// Another item is on screen: the opening allowance and the decoder's count are its own.
    public mutating func watchingAnotherItem() {
        openingSince = nil
        decoderSteps = nil
    }

    /// Since when progress has been overdue; nil while none is expected.
    public var overdueSince: MediaTime? {
        guard let last = lastProgress else { return nil }
        if let awaitedDue, awaitedDue > last { return awaitedDue }
        return last
    }

    /// Whether progress has been overdue for `timeout` at `now`.
    public func isStalled(at now: MediaTime) -> Bool {
        guard let since = overdueSince else { return false }
        return now - since >= timeout
    }
}
