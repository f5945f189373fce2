/// When playback that ran dry may go on. A local file refills in milliseconds, so it goes on
/// at the first decoded frame. A network stream that stalled goes on once `resumeAhead` of
/// media is demuxed past the frame to show, so a slow link plays in runs of a second or more
/// instead of stuttering frame by frame; it also goes on when the demuxer reached the end
/// (nothing more will come), or after `maximumWait` with whatever there is. Pure: the engine
/// feeds it measurements.
public struct RebufferPolicy: Sendable, Equatable {
    public var resumeAhead: MediaTime
    public var maximumWait: MediaTime

    public init(resumeAhead: MediaTime = MediaTime(value: 1, timescale: 1),
                maximumWait: MediaTime = MediaTime(value: 5, timescale: 1)) {
        self.resumeAhead = resumeAhead
        self.maximumWait = maximumWait
    }

    public static let network = RebufferPolicy()
    /// A live item's `latency` when kiosk.conf sets none: a third of a second absorbs a jittery
    /// network without putting the picture far behind (waiting a second ahead, as for VOD,
    /// would put it a second behind for good).
    public static let defaultLiveLatency = MediaTime(value: 3, timescale: 10)

    /// Whether a live item that ran dry may play again: once its decoded frames span `latency`
    /// (or the queue is full, or the stream ended). Counted in decoded frames, not in the demuxed
    /// position, which parts from the frames' times where a new timeline's jump is taken out;
    /// and no longest wait, so the last frames a lost sender's demuxer flushes late (fewer
    /// than the latency) do not take the fallback slate down for a blink.
    public static func liveMayResume(queuedFrames: Int, frameDuration: MediaTime, latency: MediaTime,
                                     queueFull: Bool, demuxerFinished: Bool) -> Bool {
        demuxerFinished || queueFull || frameDuration * Rational(Int64(queuedFrames), 1) >= latency
    }

    /// Local files: go on at the first frame.
    public static let local = RebufferPolicy(resumeAhead: .zero, maximumWait: .zero)

    /// Whether the item ran dry: the clock passed the last frame shown by more than two frame
    /// periods and no decoded frame is ready (a late frame is the pacer's business, not this).
    public static func hasRunDry(position: MediaTime, lastPresented: MediaTime, frameDuration: MediaTime) -> Bool {
        position > lastPresented + frameDuration * Rational(2, 1)
    }

    /// Where the clock of an item that ran dry waits: at the frame due after the one on screen
    /// (the first frame back goes up at once and the clock takes its time), not two frames or
    /// more past the screen where it noticed. Else a pause while waiting named a frame the
    /// screen never showed: CI's loaded bed paused at 1.137 s with 1.04 up, then 1.08 came,
    /// went up, and took the clock back to 1.08.
    public static func stalledPosition(position: MediaTime, lastPresented: MediaTime, frameDuration: MediaTime) -> MediaTime {
        min(position, lastPresented + frameDuration)
    }

    /// Whether a stalled item may play again, with a decoded frame at `framePTS` ready,
    /// media demuxed up to `demuxedUntil` (nil when unknown), `waited` since the stall.
    public func mayResume(framePTS: MediaTime, demuxedUntil: MediaTime?, demuxerFinished: Bool,
                          waited: MediaTime) -> Bool {
        if demuxerFinished || waited >= maximumWait { return true }
        guard let demuxedUntil else { return resumeAhead <= .zero }
        return demuxedUntil - framePTS >= resumeAhead
    }
}
