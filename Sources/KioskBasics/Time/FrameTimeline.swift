/// The times one stream's frames are presented at, decided from the file's timestamps taken as
/// untrusted input (issue 12). A damaged MPEG-PS showed a few dozen frames, then one frame
/// stamped thousands of seconds ahead, and the presenter waited for it: a frozen screen.
///
/// Frames come in presentation order, after the decoder. Each frame is judged against the last
/// time handed out and the stream's recent cadence (the median of its last steps, at first the
/// frame rate the stream declares), with one frame of look-ahead:
/// - a step of more than `cadenceFactor` cadences, or one that does not go forward, is suspect;
/// - where gaps are believed (`longestGap`), a suspect frame in order between its neighbours and
///   within the gap is kept: uneven delays (a GIF, a variable frame rate) are the file's own;
/// - a suspect frame whose successor goes on from the previous frame is a lone outlier (or a
///   frame with no timestamp): it is placed between its neighbours;
/// - a suspect frame whose successor goes on from it starts a new timeline: a jump back, or
///   forward by more than `longestGap`, is taken out with an offset (the frame comes one cadence
///   after the previous, and the frames after it follow), like a discontinuity; a forward jump
///   up to `longestGap` is kept (content is missing there, or a variable frame rate holds a
///   picture: see `FrameTimelineTuning.choose`);
/// - a frame with no timestamp gets the previous one plus a cadence.
/// So no frame is ever stamped more than `max(cadenceFactor cadences, longestGap)` after the
/// previous one, and times never go back. Pure: the engine feeds timestamps and frames.
public struct FrameTimeline<Frame> {
    public typealias Tuning = FrameTimelineTuning
    public typealias Correction = TimestampCorrection

    public let tuning: Tuning
    /// The spacing the stream declares (its frame rate), used until frames show their own.
    public let nominalCadence: MediaTime
    /// The frame held back until its successor says whether it is an outlier.
    private var pending: (frame: Frame, pts: MediaTime?)?
    /// The last time handed out.
    public private(set) var lastOutput: MediaTime?
    /// Added to every timestamp read since the last jump taken out.
    public private(set) var offset = MediaTime.zero
    private var steps: [MediaTime] = []
    public private(set) var corrections = 0

    public init(nominalCadence: MediaTime?, tuning: Tuning = .strict) {
        let fallback = MediaTime(value: 1, timescale: 25)
        if let nominalCadence, nominalCadence > .zero, nominalCadence <= MediaTime(value: 60, timescale: 1) {
            self.nominalCadence = nominalCadence
        } else {
            self.nominalCadence = fallback
        }
        self.tuning = tuning
    }

    /// The stream's cadence now: the median of its recent steps, or the declared one.
    public var cadence: MediaTime {
        guard steps.count >= 3 else { return nominalCadence }
        return steps.sorted()[steps.count / 2]
    }

    private var longestStep: MediaTime { cadence * Rational(tuning.cadenceFactor, 1) }

    /// Takes the next frame in presentation order with its timestamp (nil when it has none);
    /// returns the frame it held, if any, with the time to present it at.
    public mutating func push(_ frame: Frame, pts: MediaTime?) -> (Frame, MediaTime, Correction)? {
        defer { pending = (frame, pts) }
        guard let held = pending else { return nil }
        return decide(held, next: pts)
    }

    /// At the end of the stream: the frame still held, if any.
    public mutating func finish() -> (Frame, MediaTime, Correction)? {
        defer { pending = nil }
        guard let held = pending else { return nil }
        return decide(held, next: nil)
    }

    /// After a seek: the file is read afresh from a new position; the held frame is forgotten.
    public mutating func reset() {
        pending = nil
        lastOutput = nil
        offset = .zero
        steps = []
    }

    private func isNormalStep(_ step: MediaTime) -> Bool { step > .zero && step <= longestStep }

    private mutating func decide(_ held: (frame: Frame, pts: MediaTime?), next rawNext: MediaTime?) -> (Frame, MediaTime, Correction) {
        let current = held.pts.map { $0 + offset }
        let next = rawNext.map { $0 + offset }
        let result: (MediaTime, Correction)
        if let previous = lastOutput {
            result = place(current, after: previous, next: next)
        } else {
            result = placeFirst(current, next: next)
        }
        if result.1 != .kept { corrections += 1 }
        if let previous = lastOutput, isNormalStep(result.0 - previous) {
            steps.append(result.0 - previous)
            if steps.count > tuning.history { steps.removeFirst(steps.count - tuning.history) }
        }
        lastOutput = result.0
        return (held.frame, result.0, result.1)
    }

    /// The first frame (of the file, or after a seek) has nothing before it: it is believed
    /// unless its successor contradicts it.
    private mutating func placeFirst(_ current: MediaTime?, next: MediaTime?) -> (MediaTime, Correction) {
        guard let current else {
            return (next.map { Swift.max(.zero, $0 - cadence) } ?? .zero, .missingFilledIn)
        }
        guard let next, !isNormalStep(next - current) else { return (current, .kept) }
        if next > current, next - current <= tuning.longestGap { return (current, .kept) }
        // The successor does not follow from it: the successor's timeline wins.
        return (Swift.max(.zero, next - cadence), .outlierReplaced(was: current))
    }

    private mutating func place(_ current: MediaTime?, after previous: MediaTime, next: MediaTime?) -> (MediaTime, Correction) {
        let predicted = previous + cadence
        if let current, isNormalStep(current - previous) { return (current, .kept) }
        // Where gaps are believed, a frame in order (after the previous, before its successor,
        // or the last) and within the longest gap is the file's own time: a GIF's delays are
        // uneven (70 ms, then 300, then 330) without being damaged (issue 34: the last frames of
        // such a GIF came 230 ms early). A gap that the following frames continue is the same.
        if let current, current > previous, current - previous <= tuning.longestGap, next.map({ $0 > current }) ?? true {
            return (current, .kept)
        }
        // Does the successor go on from the previous frame? Then this one is a lone outlier
        // (or has no time): it goes between its neighbours.
        if let next, next > previous, next - previous <= longestStep + cadence {
            let between = previous + (next - previous) * Rational(1, 2)
            let placed = Swift.min(predicted, between)
            return (placed, current.map { .outlierReplaced(was: $0) } ?? .missingFilledIn)
        }
        guard let current else { return (predicted, .missingFilledIn) }
        // A new timeline (backwards, or too far ahead): it goes on one cadence after the last.
        offset = offset + (predicted - current)
        return (predicted, .jumpTakenOut(was: current))
    }
}

/// How strict a `FrameTimeline` is.
public struct FrameTimelineTuning: Sendable, Equatable {
    /// A step longer than this many cadences is suspect.
    public var cadenceFactor: Int64
    /// A forward jump that the following frames confirm is kept up to this long; longer is
    /// taken out. See `choose`.
    public var longestGap: MediaTime
    /// Steps the cadence is the median of.
    public var history: Int

    public init(cadenceFactor: Int64 = 4, longestGap: MediaTime = .zero, history: Int = 9) {
        self.cadenceFactor = cadenceFactor
        self.longestGap = longestGap
        self.history = history
    }

    /// Real gaps of up to 10 s kept: ffmpeg's `dts_delta_threshold`, and
    /// `TimestampContinuity`'s.
    public static let keepingGaps = FrameTimelineTuning(longestGap: MediaTime(value: 10, timescale: 1))
    /// No gap longer than the longest step kept.
    public static let strict = FrameTimelineTuning()

    /// Gaps are kept where they are believable: with sound, which leads the clock through
    /// them, or in a container whose timestamps do not jump (MP4, MKV, GIF: a still moment of
    /// a variable-frame-rate video, a GIF frame held 2 s). A picture alone in MPEG-TS or PS,
    /// whose damaged timestamps froze screens, keeps none.
    public static func choose(hasSound: Bool, timestampsMayJump: Bool) -> FrameTimelineTuning {
        hasSound || !timestampsMayJump ? .keepingGaps : .strict
    }
}

/// What a `FrameTimeline` did to a frame's timestamp, for a log line now and then.
public enum TimestampCorrection: Sendable, Equatable {
    case kept
    case missingFilledIn
    case outlierReplaced(was: MediaTime)
    case jumpTakenOut(was: MediaTime)
}

