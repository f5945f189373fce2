import Foundation

/// How loud the music bed is heard (kiosk.conf `audio_track`), as the writer thread mixes it:
/// the levels are linear amplitude factors, 1 = the bed as decoded.
public struct MusicBedMix: Sendable, Equatable {
    /// The bed's level while an item's own sound plays: the duck's factor, 0 for `replace`,
    /// 1 for `mix`. Under silent items and stills it is 1.
    public var underItemSound: Double
    /// Seconds a change from one level to the other takes.
    public var fadeSeconds: Double
    /// The bed's own volume in percent (the player's volume and mute come on top).
    public var volume: Int

    public init(underItemSound: Double, fadeSeconds: Double, volume: Int) {
        self.underItemSound = underItemSound
        self.fadeSeconds = fadeSeconds
        self.volume = volume
    }

    /// dB to an amplitude factor: -6 dB halves it, -20 dB is a tenth.
    public static func linear(decibels: Double) -> Double { pow(10, decibels / 20) }

    public static func decibels(linear: Double) -> Double { 20 * log10(linear) }
}

/// The bed's level over time: it glides toward the level the moment asks for (ducked while an
/// item's sound plays, full otherwise) at a constant speed, so a full swing from 1 to the ducked
/// level (or to silence, for `replace`) takes `fadeSeconds`. A step in gain is a click; a
/// glide of a few hundred milliseconds is heard as the bed making room. Pure: the writer asks
/// it once per period and ramps the samples between the two levels it returns.
public struct BedGainEnvelope: Sendable, Equatable {
    public let mix: MusicBedMix
    public let sampleRate: Int
    /// The level the last frame got.
    public private(set) var level: Double

    public init(mix: MusicBedMix, sampleRate: Int, level: Double = 1) {
        self.mix = mix
        self.sampleRate = sampleRate
        self.level = level
    }

    /// The level asked for while an item's sound is (or is not) heard.
    public func target(itemSounds: Bool) -> Double { itemSounds ? mix.underItemSound : 1 }

    /// Advances `frames` frames toward the target; returns the level at the first and after
    /// the last of them (the writer interpolates between).
    public mutating func advance(frames: Int, itemSounds: Bool) -> (start: Double, end: Double) {
        let start = level
        let target = target(itemSounds: itemSounds)
        let swing = abs(1 - mix.underItemSound)
        let fadeFrames = mix.fadeSeconds * Double(sampleRate)
        if swing == 0 || fadeFrames < 1 {
            level = target
        } else {
            let step = swing / fadeFrames * Double(frames)
            level = target > level ? min(target, level + step) : max(target, level - step)
        }
        return (start, level)
    }
}

/// Adds one buffer of interleaved samples into another, scaled by a gain that moves linearly
/// from `from` to `to` over the frames, clipping at full scale. The bed's PCM is added to the
/// item's this way, in the device's format, after the item's own volume was applied.
public enum PCMMixer {
    public static func add(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer,
                           format: PCMSampleFormat, channels: Int, gainFrom from: Double, to: Double) {
        let samples = min(source.count, target.count) / format.bytesPerSample
        let frames = samples / max(1, channels)
        guard frames > 0, let input = source.baseAddress, let output = target.baseAddress else { return }
        if from == 0 && to == 0 { return }
        let step = (to - from) / Double(frames)
        for frame in 0..<frames {
            let gain = from + step * Double(frame + 1)
            for channel in 0..<channels {
                let index = frame * channels + channel
                switch format {
                case .s16:
                    let a = input.load(fromByteOffset: index * 2, as: Int16.self)
                    let pointer = (output + index * 2).assumingMemoryBound(to: Int16.self)
                    pointer.pointee = Int16(clamping: Int32(pointer.pointee) + Int32((Double(a) * gain).rounded()))
                case .s32:
                    let a = input.load(fromByteOffset: index * 4, as: Int32.self)
                    let pointer = (output + index * 4).assumingMemoryBound(to: Int32.self)
                    pointer.pointee = Int32(clamping: Int64(pointer.pointee) + Int64((Double(a) * gain).rounded()))
                case .float:
                    let a = input.load(fromByteOffset: index * 4, as: Float.self)
                    let pointer = (output + index * 4).assumingMemoryBound(to: Float.self)
                    pointer.pointee = max(-1, min(1, pointer.pointee + a * Float(gain)))
                }
            }
        }
    }
}
