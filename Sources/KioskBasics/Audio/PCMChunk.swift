/// A run of interleaved frames in an output's format, stamped with the media time of its first
/// frame: what the engine's audio thread hands the writer thread.
public struct PCMChunk: Sendable {
    public var bytes: [UInt8]
    public var frameCount: Int
    /// Media time of the first frame.
    public var startTime: MediaTime
    /// Media seconds per played second (the tempo rate these frames were made at).
    public var rate: Rational
    /// The engine's tag for the item these frames belong to.
    public var itemTag: Int

    public init(bytes: [UInt8], frameCount: Int, startTime: MediaTime, rate: Rational = .one, itemTag: Int = 0) {
        self.bytes = bytes
        self.frameCount = frameCount
        self.startTime = startTime
        self.rate = rate
        self.itemTag = itemTag
    }

    /// Media time `frames` frames after the first, at `sampleRate` frames per played second.
    public func time(afterFrames frames: Int, sampleRate: Int) -> MediaTime {
        startTime + MediaTime(value: Int64(frames), timescale: Int32(sampleRate)) * rate
    }

    /// Media time just after the last frame.
    public func endTime(sampleRate: Int) -> MediaTime { time(afterFrames: frameCount, sampleRate: sampleRate) }
}
