import KioskCore

/// The writer thread's side of the music bed: takes as many of the bed's frames as the period
/// it writes has, and adds them under the item's samples at the level the envelope gives
/// (`BedGainEnvelope`: ducked, or silent for `replace`, while `itemSounds`; full otherwise),
/// times the player's volume (ramped like the item's, so a volume key does not click).
/// The bed's queue is only ever popped here, so its samples follow each other exactly,
/// whatever the items do. Lives on the writer thread only.
struct BedMixer {
    let queue: PCMQueue
    private var envelope: BedGainEnvelope
    private var level: SoftwareGain
    private let scratch: UnsafeMutableRawBufferPointer
    private let format: AudioFormat
    private let rampFrames: Int
    /// Frames of periods written without the bed under them because its decoder was behind
    /// (its queue empty): a gap in the bed that is not the device's. Counted from the bed's
    /// first sample on: before it, the decoder is opening its first file.
    private(set) var missingFrames: Int64 = 0
    private var hasBegun = false

    init(queue: PCMQueue, mix: MusicBedMix, chunkFrames: Int, rampFrames: Int) {
        self.queue = queue
        format = queue.format
        envelope = BedGainEnvelope(mix: mix, sampleRate: format.sampleRate)
        level = SoftwareGain(gain: 1, rampFrames: rampFrames)
        self.rampFrames = rampFrames
        scratch = .allocate(byteCount: chunkFrames * format.bytesPerFrame, alignment: 16)
    }

    func deallocate() { scratch.deallocate() }

    /// Takes `gain` at once, with no ramp: for what starts after silence (a sound cue), so it
    /// begins at the player's level instead of gliding from the last one it was heard at.
    mutating func setLevel(_ gain: Double) {
        if level.current != gain || level.target != gain { level = SoftwareGain(gain: gain, rampFrames: rampFrames) }
    }

    /// Adds the bed under `samples` (the period about to be written, in the device's format).
    /// A bed that has fewer frames ready (its decoder behind, or no playable file) leaves the
    /// rest as it is.
    mutating func mix(into samples: UnsafeMutableRawBufferPointer, itemSounds: Bool, level gain: Double) {
        let bytesPerFrame = format.bytesPerFrame
        let frames = min(samples.count, scratch.count) / bytesPerFrame
        guard frames > 0 else { return }
        let (start, end) = envelope.advance(frames: frames, itemSounds: itemSounds)
        level.setTarget(gain)
        var done = 0
        while done < frames, let slice = queue.pop(maxFrames: frames - done, into: scratch, timeout: 0) {
            let bed = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(slice.frameCount * bytesPerFrame)])
            level.apply(to: bed, format: format.sampleFormat, channels: format.channels)
            let from = start + (end - start) * Double(done) / Double(frames)
            let to = start + (end - start) * Double(done + slice.frameCount) / Double(frames)
            let target = UnsafeMutableRawBufferPointer(rebasing: samples[(done * bytesPerFrame)..<((done + slice.frameCount) * bytesPerFrame)])
            PCMMixer.add(UnsafeRawBufferPointer(bed), into: target, format: format.sampleFormat, channels: format.channels,
                         gainFrom: from, to: to)
            done += slice.frameCount
            hasBegun = true
        }
        if hasBegun { missingFrames += Int64(frames - done) }
    }
}
