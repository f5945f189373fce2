/// A transition's share of the sound (issue 22: "sound follows"): the item's samples rise from
/// silence over `fadeIn` after its start and fall to silence over the `fadeOut` before its end,
/// by their media time, so the sound follows the picture whatever the feeder queued ahead.
/// Applied by the feeder as it moves an item's chunks to the writer, before the writer's own
/// volume; the music bed is not touched (it plays under every item).
public struct SoundEnvelope: Sendable, Hashable {
    /// Media time the rise starts at (the item's trimmed start) and how long it takes.
    public var fadeIn: (start: MediaTime, length: MediaTime)? {
        get { rise.map { ($0.start, $0.length) } }
        set { rise = newValue.map { Ramp(start: $0.start, length: $0.length) } }
    }
    /// Media time the item ends at and how long the fall before it takes.
    public var fadeOut: (end: MediaTime, length: MediaTime)? {
        get { fall.map { ($0.start, $0.length) } }
        set { fall = newValue.map { Ramp(start: $0.end, length: $0.length) } }
    }
    private var rise: Ramp?
    private var fall: Ramp?

    private struct Ramp: Sendable, Hashable {
        var start: MediaTime
        var length: MediaTime
    }

    public init() {}

    public var isEmpty: Bool { rise == nil && fall == nil }

    /// The gain at media time `time`: 0...1.
    public func gain(at time: MediaTime) -> Double { gain(atSeconds: time.seconds) }

    private func gain(atSeconds time: Double) -> Double {
        var gain = 1.0
        if let rise, rise.length > .zero { gain = Swift.min(gain, (time - rise.start.seconds) / rise.length.seconds) }
        if let fall, fall.length > .zero { gain = Swift.min(gain, (fall.start.seconds - time) / fall.length.seconds) }
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
        if let rise, first < (rise.start + rise.length).seconds { return true }
        if let fall, last > (fall.start - fall.length).seconds { return true }
        return false
    }
}
