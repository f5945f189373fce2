/// A transition's share of the sound (issue 22: "sound follows"): the item's samples rise from
/// silence over `fadeIn` after its start and fall to silence over the `fadeOut` before its end,
/// by their media time, so the sound follows the picture whatever the feeder queued ahead.
/// Applied by the feeder as it moves an item's chunks to the writer, before the writer's own
/// volume; the music bed is not touched (it plays under every item).
public struct SoundEnvelope: Sendable, Hashable {
    /// The rise after the item's start: from silence at `start` to full `length` later.
    public var fadeIn: Ramp?
    /// The fall before the item's end: from full `length` before `start` (the end) to silence there.
    public var fadeOut: Ramp?

    /// A straight ramp: where it is anchored (media time) and how long it takes.
    public struct Ramp: Sendable, Hashable {
        public var start: MediaTime
        public var length: MediaTime
        public init(start: MediaTime, length: MediaTime) { self.start = start; self.length = length }
    }

    public init() {}

    public var isEmpty: Bool { fadeIn == nil && fadeOut == nil }

    /// The gain at media time `time`: 0...1.
    public func gain(at time: MediaTime) -> Double { gain(atSeconds: time.seconds) }

    private func gain(atSeconds time: Double) -> Double {
        var gain = 1.0
        if let rise = fadeIn, rise.length > .zero { gain = Swift.min(gain, (time - rise.start.seconds) / rise.length.seconds) }
        if let fall = fadeOut, fall.length > .zero { gain = Swift.min(gain, (fall.start.seconds - time) / fall.length.seconds) }
        return Swift.min(1, Swift.max(0, gain))
    }

    /// Scales `chunk`'s frames (interleaved, `format`) by the gain at each frame's time; a chunk
    /// that touches neither ramp is left as it is.
    public func apply(to chunk: inout PCMChunk, format: AudioFormat) {
        let first = chunk.startTime.seconds, last = chunk.endTime(sampleRate: format.sampleRate).seconds
        guard touchesRamp(from: first, to: last) else { return }
        let channels = format.channels, sampleFormat = format.sampleFormat, frameCount = chunk.frameCount
        let secondsPerFrame = chunk.rate.doubleValue / Double(format.sampleRate)
        chunk.bytes.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            for frame in 0..<frameCount {
                let gain = gain(atSeconds: first + Double(frame) * secondsPerFrame)
                if gain < 1 { SoftwareGain.scale(base, format: sampleFormat, from: frame * channels, count: channels, by: gain) }
            }
        }
    }

    /// Whether any of [first, last] lies before the rise's end or after the fall's start.
    private func touchesRamp(from first: Double, to last: Double) -> Bool {
        if let rise = fadeIn, first < (rise.start + rise.length).seconds { return true }
        if let fall = fadeOut, last > (fall.start - fall.length).seconds { return true }
        return false
    }
}
