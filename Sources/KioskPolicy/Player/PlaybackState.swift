/// The player's observable state as a value-type state machine: fed engine events and user
/// commands (`PlaybackInput`), it updates itself and returns the public events to emit, in a
/// fixed order. It owns no threads and no time: the engine serialises inputs (one control
/// queue) and drives the clock from `clockRate`.
///
/// Semantics follow AVPlayer: `rate` is what was asked for (0 means paused, and `play()` sets
/// `defaultRate`); `timeControlStatus` says whether time really advances, and when it does not
/// although the rate is not 0, `reasonForWaitingToPlay` says why. Volume (percent) and mute are
/// independent: unmuting restores the volume as it was.
///
/// Events are computed by comparing the observable state before and after each input, so one
/// input never reports a transient (a seam goes from playing to playing, not through waiting).
public struct PlaybackState: Sendable, Hashable {
    public private(set) var currentItem: PlayerItemReference?
    /// The current item's status; `.unknown` when there is no item.
    public private(set) var status: PlayerItemStatus = .unknown
    /// The current item's duration; nil until it is ready, or for a live stream.
    public private(set) var duration: MediaTime?
    /// The requested rate: 0 when paused, else 0.25...4.
    public private(set) var rate = Rational(0, 1)
    /// The rate `play()` uses.
    public private(set) var defaultRate = PlaybackRate.normal
    /// Volume in percent, 0...100.
    public private(set) var volume = 100
    public private(set) var isMuted = false

    /// A frame at the current position is decoded (set by `bufferReady`, cleared by a new
    /// item, `bufferEmpty` and every seek, which flushes the decoders).
    private var isBufferReady = false
    /// The current item played to its end and nothing has replaced it yet.
    private var hasEnded = false
    /// The item `itemStarted` was last reported for, so pausing and resuming does not repeat it.
    private var startedItem: PlayerItemReference?

    public init() {}

    /// Starts from configured values (kiosk.conf's volume, mute, rate), checked like commands.
    public init(volume: Int, isMuted: Bool = false, defaultRate: Rational = PlaybackRate.normal) throws(PlaybackError) {
        guard (0...100).contains(volume) else { throw .volumeOutOfRange(volume) }
        guard PlaybackRate.isPlayable(defaultRate) else { throw .defaultRateOutOfRange(defaultRate) }
        self.volume = volume
        self.isMuted = isMuted
        self.defaultRate = defaultRate
    }

    public var timeControlStatus: TimeControlStatus {
        if rate.numerator == 0 { return .paused }
        return reasonForWaitingToPlay == nil ? .playing : .waitingToPlayAtSpecifiedRate
    }

    /// Why time does not advance although the rate is not 0; nil when playing or paused.
    public var reasonForWaitingToPlay: WaitingReason? {
        guard rate.numerator != 0 else { return nil }
        guard currentItem != nil else { return .noItemToPlay }
        switch status {
        case .unknown: return .openingItem
        case .failed: return .noItemToPlay
        case .readyToPlay:
            if hasEnded { return .noItemToPlay }
            return isBufferReady ? nil : .buffering
        }
    }

    /// The rate the playback clock must run at: `rate` while playing, 0 otherwise (paused or
    /// waiting: time stands still until frames are there).
    public var clockRate: Rational { timeControlStatus == .playing ? rate : Rational(0, 1) }

    /// Applies `input` and returns the events to emit. Throws, changing nothing, for a command
    /// that cannot be honoured (rate or volume out of range, seek without a ready item).
    public mutating func handle(_ input: PlaybackInput) throws(PlaybackError) -> [PlaybackEvent] {
        let before = self
        var leading: [PlaybackEvent] = []   // what happened to items, reported first
        var seekTarget: MediaTime?

        switch input {
        case .itemLoading(let item):
            replaceCurrentItem(with: item)
        case .itemReady(let itemDuration):
            guard currentItem != nil else { break }   // a late report for an item already gone
            status = .readyToPlay
            duration = Self.validDuration(itemDuration)
        case .itemFailed(let item, let reason):
            leading.append(.itemFailed(item, reason: reason))
            if item == currentItem {
                status = .failed(reason: reason)
                isBufferReady = false
            }
        case .advanced(let item, let itemDuration):
            if let ending = currentItem, !hasEnded { leading.append(.itemEnded(ending)) }
            replaceCurrentItem(with: item)
            status = .readyToPlay
            duration = Self.validDuration(itemDuration)
            isBufferReady = true
        case .endReached:
            guard let ending = currentItem, status == .readyToPlay, !hasEnded else { break }
            hasEnded = true
            leading.append(.itemEnded(ending))
        case .queueEmpty:
            replaceCurrentItem(with: nil)
        case .bufferEmpty:
            isBufferReady = false
        case .bufferReady:
            if status == .readyToPlay { isBufferReady = true }
        case .request(let request, let position):
            seekTarget = try apply(request, position: position)
        }

        if seekTarget != nil {
            // A seek flushes the pipelines: time waits until the frame at the target is decoded.
            hasEnded = false
            isBufferReady = false
        }
        return leading + changes(since: before, seekTarget: seekTarget)
    }

    /// A user's request; returns the seek target when it seeks. Throws, changing nothing, for
    /// a value out of range or a seek without a ready item.
    private mutating func apply(_ request: PlayerRequest, position: MediaTime) throws(PlaybackError) -> MediaTime? {
        switch request {
        case .play:
            rate = defaultRate
        case .pause:
            rate = Rational(0, 1)
        case .togglePlayPause:
            rate = rate.numerator == 0 ? defaultRate : Rational(0, 1)
        case .setRate(let requested):
            let pauses = requested.numerator == 0 && requested.denominator > 0   // not 0/0 (unset)
            guard pauses || PlaybackRate.isPlayable(requested) else { throw .rateOutOfRange(requested) }
            rate = pauses ? Rational(0, 1) : requested
        case .setDefaultRate(let requested):
            guard PlaybackRate.isPlayable(requested) else { throw .defaultRateOutOfRange(requested) }
            defaultRate = requested
        case .setSpeed(let requested):
            guard PlaybackRate.isPlayable(requested) else { throw .defaultRateOutOfRange(requested) }
            defaultRate = requested
            if rate.numerator != 0 { rate = requested }
        case .setVolume(let requested):
            guard (0...100).contains(requested) else { throw .volumeOutOfRange(requested) }
            volume = requested
        case .adjustVolume(let delta):
            // Clamped, not rejected: holding volume-up at 100 is not an error.
            volume = Int(Swift.min(100, Swift.max(0, Int64(volume) + Int64(delta))))
        case .setMuted(let muted):
            isMuted = muted
        case .toggleMute:
            isMuted.toggle()
        case .seek(let time):
            return try clampedSeekTarget(time)
        case .skip(let delta):
            return try clampedSeekTarget(position + delta)
        default:
            // A playlist request: the engine moves its cursor and reports the new item.
            assert(request.isPlaylistRequest, "\(request) is routed to PlaybackState but has no meaning here")
        }
        return nil
    }

    private mutating func replaceCurrentItem(with item: PlayerItemReference?) {
        currentItem = item
        status = .unknown
        duration = nil
        isBufferReady = false
        hasEnded = false
    }

    /// A negative duration is a broken container; treat it like an unknown one (no end to
    /// clamp to) rather than making every seek land before 0.
    private static func validDuration(_ duration: MediaTime?) -> MediaTime? {
        guard let duration, duration >= .zero else { return nil }
        return duration
    }

    private func clampedSeekTarget(_ time: MediaTime) throws(PlaybackError) -> MediaTime {
        guard currentItem != nil else { throw .noItemToSeek }
        guard status == .readyToPlay else { throw .notSeekable(status) }
        let notBeforeStart = Swift.max(time, .zero)
        guard let duration else { return notBeforeStart }   // live: no end to clamp to
        return Swift.min(notBeforeStart, duration)
    }

    /// The public events for what changed since `before`, in a fixed order: status, seek,
    /// rates, time control, item start, volume, mute.
    private mutating func changes(since before: PlaybackState, seekTarget: MediaTime?) -> [PlaybackEvent] {
        var events: [PlaybackEvent] = []
        if status != before.status { events.append(.statusChanged(status)) }
        if let seekTarget { events.append(.seek(to: seekTarget)) }
        if rate != before.rate { events.append(.rateChanged(rate)) }
        if defaultRate != before.defaultRate { events.append(.defaultRateChanged(defaultRate)) }
        if timeControlStatus != before.timeControlStatus || reasonForWaitingToPlay != before.reasonForWaitingToPlay {
            events.append(.timeControlStatusChanged(timeControlStatus, reasonForWaiting: reasonForWaitingToPlay))
        }
        if timeControlStatus == .playing, let item = currentItem, item != startedItem {
            startedItem = item
            events.append(.itemStarted(item))
        }
        if volume != before.volume { events.append(.volumeChanged(volume)) }
        if isMuted != before.isMuted { events.append(.mutedChanged(isMuted)) }
        return events
    }
}
