/// The master clock: maps media time to host time (CLOCK_MONOTONIC) and back, exactly.
///
/// It is a line through an anchor: at host time `anchorHost` the media time was `anchorMedia`,
/// and media time advances `rate` seconds per host second (0: paused, frozen). Pausing, rate
/// changes and seeks re-anchor at the position of that instant, so the position never jumps.
/// With no audio the monotonic clock leads: nothing but these commands moves the line, and the
/// arithmetic is exact (MediaTime), so looping for days adds no drift.
///
/// With audio, the audio writer feeds `observeAudio`: the pts of the last written sample minus
/// the device delay, which is what is heard now. The sound card's crystal is not the system's
/// (tens of ppm apart: seconds a day), so the clock follows the audio: a small difference is
/// absorbed by running a little faster or slower for `Tuning.correctionTime` (the position
/// stays continuous and, while playing, never goes back, so video does not jitter); a large
/// one (a device restart), or any gap the writer reports (an underrun, silence padded in), is a
/// discontinuity and the clock jumps to the audio.
/// Each observation corrects the error anew, so the error stays bounded by the observation
/// noise plus drift × correctionTime (80 ppm × 1 s = 80 µs), however long it runs.
///
/// A value type on purpose: the engine keeps one behind a lock and the presenter copies it
/// out, so pacing a frame never holds the lock and a copy can never change under it.
public struct PlaybackClock: Sendable, Hashable {
    public struct Tuning: Sendable, Hashable {
        /// How long a difference to the audio takes to be absorbed. Longer smooths jitter in
        /// the device's delay reports better; shorter follows faster.
        public let correctionTime: MediaTime
        /// The largest speed change used to absorb a difference, as a fraction of the rate
        /// (1/10: the video runs at most 10% fast or slow while catching up). Kept within
        /// 0...1/2 so that the corrected clock always runs forward.
        public let maximumCorrection: Rational
        /// A difference larger than this is a discontinuity: jump instead of absorbing it.
        public let resyncThreshold: MediaTime

        public init(correctionTime: MediaTime = MediaTime(value: 1, timescale: 1),
                    maximumCorrection: Rational = Rational(1, 10),
                    resyncThreshold: MediaTime = MediaTime(value: 1, timescale: 10)) {
            self.correctionTime = correctionTime
            let half = Rational(1, 2)
            if !maximumCorrection.isKnownAndPositive {
                self.maximumCorrection = Rational(0, 1)
            } else {
                self.maximumCorrection = PlaybackRate.isLess(half, maximumCorrection) ? half : maximumCorrection
            }
            self.resyncThreshold = resyncThreshold
        }
    }

    /// What an audio observation did to the clock; `error` is audio minus clock.
    public enum AudioSync: Sendable, Hashable {
        /// The clock is stopped: the audio is not advancing either, nothing to follow.
        case ignoredWhileStopped
        /// The difference is being absorbed over `Tuning.correctionTime`.
        case following(error: MediaTime)
        /// The difference was too large: the clock jumped to the audio.
        case resynchronised(error: MediaTime)
    }

    public private(set) var anchorMedia: MediaTime
    public private(set) var anchorHost: MediaTime
    /// Media seconds per host second; 0 while paused or waiting.
    public private(set) var rate: Rational
    public let tuning: Tuning
    /// Extra media seconds per host second while an audio difference is being absorbed.
    private var correction = Rational(0, 1)
    /// How long after `anchorHost` the correction applies (until the difference is absorbed).
    private var correctionSpan = MediaTime.zero

    /// A clock showing `mediaTime` at `hostTime`, running at `rate` (0: stopped).
    public init(mediaTime: MediaTime = .zero, hostTime: MediaTime, rate: Rational = Rational(0, 1),
                tuning: Tuning = Tuning()) {
        self.anchorMedia = mediaTime
        self.anchorHost = hostTime
        self.rate = Self.validRate(rate)
        self.tuning = tuning
    }

    public var isRunning: Bool { rate.numerator != 0 }

    /// The media time at host time `host`.
    public func mediaTime(atHost host: MediaTime) -> MediaTime {
        guard isRunning else { return anchorMedia }
        let elapsed = host - anchorHost
        var time = anchorMedia + elapsed * rate
        if correction.numerator != 0, elapsed > .zero {
            time += Swift.min(elapsed, correctionSpan) * correction
        }
        return time
    }

    /// The host time at which the clock shows `media`; nil while stopped (it never will).
    public func hostTime(forMediaTime media: MediaTime) -> MediaTime? {
        guard isRunning else { return nil }
        let ahead = media - anchorMedia
        guard correction.numerator != 0, ahead > .zero else { return anchorHost + ahead * rate.inverted }
        let correctedRate = rateSum(rate, correction)
        let correctedAhead = correctionSpan * correctedRate   // media covered while correcting
        if ahead <= correctedAhead { return anchorHost + ahead * correctedRate.inverted }
        return anchorHost + correctionSpan + (ahead - correctedAhead) * rate.inverted
    }

    /// Changes the rate at `host` without a jump; 0 stops (pauses) the clock. Negative rates
    /// are treated as 0: kiosk never plays backwards.
    public mutating func setRate(_ newRate: Rational, atHost host: MediaTime) {
        reanchor(at: mediaTime(atHost: host), host: host)
        rate = Self.validRate(newRate)
    }

    /// Freezes the clock at its position at `host`.
    public mutating func pause(atHost host: MediaTime) {
        setRate(Rational(0, 1), atHost: host)
    }

    /// The clock shows `media` at `host` (after a seek, at a new item), rate unchanged.
    public mutating func seek(to media: MediaTime, atHost host: MediaTime) {
        reanchor(at: media, host: host)
    }

    /// Renames media time without touching host time: at a seam, the old item's `from` (its
    /// duration) is the next item's `to` (its start). Exact, so looping adds no drift.
    public mutating func rebase(from oldTime: MediaTime, to newTime: MediaTime) {
        anchorMedia = anchorMedia - oldTime + newTime
    }

    /// Follows the audio master: `heard` is the pts of the last sample written minus the
    /// device delay, measured at `host`. `afterGap`: the sound had a gap (silence padded in,
    /// an underrun) since the last observation. A gap is a discontinuity of any size: the audio
    /// stood still for its length while the clock ran on, so the clock jumps to the audio at
    /// once. Absorbing it like drift would leave the video ahead of the sound by up to the
    /// resync threshold (100 ms) for a second.
    @discardableResult
    public mutating func observeAudio(_ heard: MediaTime, atHost host: MediaTime, afterGap: Bool = false) -> AudioSync {
        guard isRunning else { return .ignoredWhileStopped }
        let now = mediaTime(atHost: host)
        let error = heard - now
        let magnitude = error < .zero ? MediaTime.zero - error : error
        if magnitude > tuning.resyncThreshold || (afterGap && error != .zero) {
            reanchor(at: heard, host: host)
            return .resynchronised(error: error)
        }
        reanchor(at: now, host: host)
        absorb(error)
        return .following(error: error)
    }

    private mutating func reanchor(at media: MediaTime, host: MediaTime) {
        anchorMedia = media
        anchorHost = host
        correction = Rational(0, 1)
        correctionSpan = .zero
    }

    /// Sets a speed correction that absorbs `error` over `correctionTime`, or longer when the
    /// speed change would exceed `maximumCorrection`. Integer nanoseconds and parts per
    /// billion: exact enough, and the next observation corrects any rounding.
    private mutating func absorb(_ error: MediaTime) {
        let errorNanos = Int128(error.ticks(in: Self.nanosecond))
        let windowNanos = Int128(Swift.max(1, tuning.correctionTime.ticks(in: Self.nanosecond)))
        guard errorNanos != 0 else { return }
        let limit = Self.partsPerBillion(rate) * Self.partsPerBillion(tuning.maximumCorrection) / Self.billion
        var perBillion = errorNanos * Self.billion / windowNanos
        perBillion = Swift.max(-limit, Swift.min(limit, perBillion))
        guard perBillion != 0, let ppb = Int64(exactly: perBillion) else { return }
        correction = Rational(ppb, Int64(Self.billion))
        let spanNanos = errorNanos * Self.billion / perBillion   // same sign: positive
        correctionSpan = MediaTime(value: Int64(clamping: spanNanos), timescale: Int32(Self.billion))
    }

    private static let billion: Int128 = 1_000_000_000
    private static let nanosecond = Rational(1, 1_000_000_000)

    private static func partsPerBillion(_ value: Rational) -> Int128 {
        guard value.denominator > 0 else { return 0 }
        return Int128(value.numerator) * billion / Int128(value.denominator)
    }

    private static func validRate(_ rate: Rational) -> Rational {
        rate.denominator > 0 && rate.numerator > 0 ? rate : Rational(0, 1)
    }

    /// `a + b`, exact when the result fits, else to the nearest part per billion.
    private func rateSum(_ a: Rational, _ b: Rational) -> Rational {
        let numerator = Int128(a.numerator) * Int128(b.denominator) + Int128(b.numerator) * Int128(a.denominator)
        let denominator = Int128(a.denominator) * Int128(b.denominator)
        if let n = Int64(exactly: numerator), let d = Int64(exactly: denominator) { return Rational(n, d) }
        return Rational(Int64(clamping: numerator * Self.billion / denominator), Int64(Self.billion))
    }
}

extension MediaTime {
    /// A CLOCK_MONOTONIC reading in nanoseconds (what `clock_gettime` gives) as a host time.
    public init(hostNanoseconds: Int64) {
        self.init(value: hostNanoseconds, timescale: 1_000_000_000)
    }
}
