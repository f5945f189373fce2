import Foundation
import KioskCore

/// Measurements on recorded sound, one channel at a time, samples in -1...1.
public enum Signal {
    /// Splits interleaved PCM into channels of floats (integers scaled to -1...1).
    public static func channels(of bytes: [UInt8], format: PCMSampleFormat, channelCount: Int) -> [[Float]] {
        let frameCount = bytes.count / (format.bytesPerSample * channelCount)
        var result = Array(repeating: [Float](repeating: 0, count: frameCount), count: channelCount)
        bytes.withUnsafeBytes { raw in
            for frame in 0..<frameCount {
                for channel in 0..<channelCount {
                    let index = frame * channelCount + channel
                    switch format {
                    case .s16: result[channel][frame] = Float(raw.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)) / 32768
                    case .s32: result[channel][frame] = Float(Double(raw.loadUnaligned(fromByteOffset: index * 4, as: Int32.self)) / 2147483648)
                    case .float: result[channel][frame] = raw.loadUnaligned(fromByteOffset: index * 4, as: Float.self)
                    }
                }
            }
        }
        return result
    }

    public static func readFile(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    public static func rms(_ samples: [Float]) -> Double { rms(samples[...]) }

    public static func peak(_ samples: [Float]) -> Float { samples.map(abs).max() ?? 0 }

    /// The frequency of a steady tone from its rising zero crossings, interpolated between
    /// samples: exact to well under 1 Hz over a second.
    public static func frequency(of samples: [Float], sampleRate: Int) -> Double {
        var crossings: [Double] = []
        for index in 1..<max(1, samples.count) where samples[index - 1] < 0 && samples[index] >= 0 {
            let fraction = Double(-samples[index - 1]) / Double(samples[index] - samples[index - 1])
            crossings.append(Double(index - 1) + fraction)
        }
        guard crossings.count >= 2 else { return 0 }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(sampleRate))
    }

    /// The range of frames louder than `threshold`: where the sound is, without the silence
    /// written around it.
    public static func soundingRange(_ samples: [Float], threshold: Float = 0.01) -> Range<Int> {
        guard let first = samples.firstIndex(where: { abs($0) > threshold }),
              let last = samples.lastIndex(where: { abs($0) > threshold }) else { return 0..<0 }
        return first..<(last + 1)
    }
}
