import KioskCore

/// Turns decoded frames into chunks an output can play: resampled and remixed to its format
/// (`Resampler`), then stretched to the playback rate at the same pitch (`TempoFilter`, not
/// used at rate 1). The engine's audio thread runs one per item and pushes the chunks into the
/// writer's `PCMQueue`.
///
/// Timestamps: the first frame after a start, seek (`reset`) or rate change anchors the
/// timeline; every chunk's start time is the anchor plus the frames produced since, times the
/// rate. Counting frames keeps it exact and monotonic however long an item plays, whatever
/// the filters hold back.
public final class AudioConverter {
    public let output: AudioFormat
    public private(set) var rate: Rational
    /// Stamped on every chunk (the engine's id for the item).
    public let itemTag: Int
    private let resampler: Resampler
    private var tempo: TempoFilter?
    /// Parts per million the sound is played longer (positive) or shorter by (`Resampler`).
    public private(set) var compensationPPM = 0
    private var anchor: MediaTime?
    private var framesSinceAnchor: Int64 = 0
    private var converted: [UInt8] = []
    private var stretched: [UInt8] = []

    public init(output: AudioFormat, rate: Rational = .one, itemTag: Int = 0) throws {
        self.output = output
        self.rate = rate
        self.itemTag = itemTag
        resampler = Resampler(output: output)
        tempo = try AudioConverter.makeTempo(output, rate)
    }

    private static func makeTempo(_ output: AudioFormat, _ rate: Rational) throws -> TempoFilter? {
        rate == .one ? nil : try TempoFilter(format: output, rate: rate)
    }

    /// Converts one decoded frame; nil while the filters are still filling.
    public func convert(_ frame: DecodedAudioFrame) throws -> PCMChunk? {
        if anchor == nil {
            anchor = frame.pts
            framesSinceAnchor = 0
        }
        converted.removeAll(keepingCapacity: true)
        try resampler.convert(frame, appendingTo: &converted)
        return try stretchAndStamp(finishing: false)
    }

    /// The end of the item: everything the filters still hold. The converter then starts
    /// afresh (as after `reset`).
    public func finish() throws -> PCMChunk? {
        converted.removeAll(keepingCapacity: true)
        try resampler.flush(appendingTo: &converted)
        let chunk = try stretchAndStamp(finishing: true)
        try reset()
        return chunk
    }

    /// Changes the tempo. What the old tempo still held is returned, stamped at the old rate;
    /// the timeline re-anchors where it ends.
    public func setRate(_ newRate: Rational) throws -> PCMChunk? {
        guard newRate != rate else { return nil }
        let replacement = try AudioConverter.makeTempo(output, newRate)
        converted.removeAll(keepingCapacity: true)
        let tail = try stretchAndStamp(finishing: true)
        if let anchor {
            self.anchor = anchor + output.duration(ofFrames: Int(framesSinceAnchor)) * mediaPerOutput
            framesSinceAnchor = 0
        }
        rate = newRate
        tempo = replacement
        return tail
    }

    /// Plays the sound `ppm` parts per million longer or shorter from now on. The chunks'
    /// times stay the media's: the frames produced since the anchor count at the new length.
    public func setCompensation(ppm: Int) {
        let ppm = Swift.max(-100_000, Swift.min(100_000, ppm))
        guard ppm != compensationPPM else { return }
        if let anchor {
            self.anchor = anchor + output.duration(ofFrames: Int(framesSinceAnchor)) * mediaPerOutput
            framesSinceAnchor = 0
        }
        compensationPPM = ppm
        resampler.setCompensation(ppm: ppm)
    }

    /// Media time per output second: the rate, shortened while the sound is stretched.
    private var mediaPerOutput: Rational {
        guard compensationPPM != 0 else { return rate }
        let (numerator, overflowN) = rate.numerator.multipliedReportingOverflow(by: 1_000_000)
        let (denominator, overflowD) = rate.denominator.multipliedReportingOverflow(by: Int64(1_000_000 + compensationPPM))
        guard !overflowN, !overflowD else { return rate }
        return Rational(numerator, denominator)
    }

    /// Forgets everything held (seeks); the next frame anchors the timeline.
    public func reset() throws {
        resampler.reset()
        tempo = try AudioConverter.makeTempo(output, rate)
        anchor = nil
        framesSinceAnchor = 0
    }

    private func stretchAndStamp(finishing: Bool) throws -> PCMChunk? {
        var bytes: [UInt8]
        if let tempo {
            stretched.removeAll(keepingCapacity: true)
            try converted.withUnsafeBytes { _ = try tempo.process($0, appendingTo: &stretched) }
            if finishing { try tempo.finish(appendingTo: &stretched) }
            bytes = stretched
        } else {
            bytes = converted
        }
        let frameCount = bytes.count / output.bytesPerFrame
        guard frameCount > 0, let anchor else { return nil }
        let start = anchor + output.duration(ofFrames: Int(framesSinceAnchor)) * mediaPerOutput
        framesSinceAnchor += Int64(frameCount)
        return PCMChunk(bytes: bytes, frameCount: frameCount, startTime: start, rate: rate, itemTag: itemTag)
    }
}

/// An asset's audio as chunks ready for an output: `AudioFrameReader` + `AudioConverter`, on
/// the calling thread. Tests, tools and benchmarks use it; the engine combines the two
/// itself around its demux thread.
public final class AudioSampleReader {
    public let reader: AudioFrameReader
    public let converter: AudioConverter
    private var ended = false

    public init(asset: Asset, output: AudioFormat, rate: Rational = .one, itemTag: Int = 0) throws {
        reader = try AudioFrameReader(asset: asset)
        converter = try AudioConverter(output: output, rate: rate, itemTag: itemTag)
    }

    /// The next chunk, or nil at the end of the stream.
    public func nextChunk() throws -> PCMChunk? {
        while !ended {
            guard let frame = try reader.nextFrame() else {
                ended = true
                return try converter.finish()
            }
            if let chunk = try converter.convert(frame) { return chunk }
        }
        return nil
    }

    public func seek(to time: MediaTime) throws {
        try reader.seek(to: time)
        try converter.reset()
        ended = false
    }
}
