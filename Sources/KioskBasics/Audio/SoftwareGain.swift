/// Volume and mute as a gain on the samples, so they work on every device (many HDMI sinks
/// have no mixer control). Changes ramp linearly over a few milliseconds: a step in gain is a
/// click. The writer applies it to each chunk just before writing it, so a change is heard
/// after the device's buffer (about 40 ms), not after everything queued upstream.
public struct SoftwareGain: Sendable, Hashable {
    /// The gain the last processed frame got.
    public private(set) var current: Double
    /// Where the ramp is heading.
    public private(set) var target: Double
    /// How many frames a full ramp takes.
    public let rampFrames: Int
    private var step = 0.0
    private var framesLeftInRamp = 0

    public init(gain: Double = 1, rampFrames: Int) {
        precondition(rampFrames > 0, "a ramp needs at least one frame")
        current = Self.clamp(gain)
        target = current
        self.rampFrames = rampFrames
    }

    /// AVPlayer's mapping: the gain is the volume as a fraction (volume 50 = half the
    /// amplitude), 0 when muted. `volume` is clamped to 0...100.
    public static func linearGain(volume: Int, isMuted: Bool) -> Double {
        isMuted ? 0 : Double(Swift.min(100, Swift.max(0, volume))) / 100
    }

    /// Starts a ramp from the current gain to `gain` (0...1).
    public mutating func setTarget(_ gain: Double) {
        let gain = Self.clamp(gain)
        guard gain != target || framesLeftInRamp > 0 else { return }
        target = gain
        framesLeftInRamp = rampFrames
        step = (target - current) / Double(rampFrames)
    }

    public var isRamping: Bool { framesLeftInRamp > 0 }

    /// Scales `frameCount` interleaved frames of `channels` samples in place.
    public mutating func apply(to samples: UnsafeMutableRawBufferPointer, format: PCMSampleFormat, channels: Int) {
        let frameCount = samples.count / (format.bytesPerSample * channels)
        guard frameCount > 0, let base = samples.baseAddress else { return }
        // The ramp, frame by frame; then one constant gain, where 1 costs nothing. Plain loops
        // per format: this runs on every period the writer thread writes.
        let rampFrames = Swift.min(frameCount, framesLeftInRamp)
        for frame in 0..<rampFrames {
            current += step
            framesLeftInRamp -= 1
            if framesLeftInRamp == 0 { current = target }
            Self.scale(base, format: format, from: frame * channels, count: channels, by: current)
        }
        guard rampFrames < frameCount, current != 1 else { return }
        Self.scale(base, format: format, from: rampFrames * channels, count: (frameCount - rampFrames) * channels, by: current)
    }

    static func scale(_ base: UnsafeMutableRawPointer, format: PCMSampleFormat, from start: Int, count: Int, by gain: Double) {
        switch format {
        case .s16:
            let samples = base.assumingMemoryBound(to: Int16.self) + start
            let factor = Float(gain)
            for index in 0..<count {
                samples[index] = Int16(clamping: Int32((Float(samples[index]) * factor).rounded()))
            }
        case .s32:
            let samples = base.assumingMemoryBound(to: Int32.self) + start
            for index in 0..<count {
                samples[index] = Int32(clamping: Int64((Double(samples[index]) * gain).rounded()))
            }
        case .float:
            let samples = base.assumingMemoryBound(to: Float.self) + start
            let factor = Float(gain)
            for index in 0..<count { samples[index] *= factor }
        }
    }

    private static func clamp(_ gain: Double) -> Double {
        gain.isFinite ? Swift.min(1, Swift.max(0, gain)) : 0
    }
}
