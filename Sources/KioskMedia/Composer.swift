import CFFmpeg
import CKioskShim
import KioskCore

/// `kiosk compose`'s work, as its `ComposePlan` says: the clips one after the other in one
/// file, either each picture laid out on the output size with the gravity rules kiosk plays
/// with (`Scaler`: sample aspect, rotation tag, fit/fill/stretch, black bars), frames repeated
/// or dropped by pts to the output rate, and encoded once (libx264 + AAC); or, when every input
/// matches, their packets copied (`Remuxer`). Runs on the calling thread.
public final class Composer {
    public let plan: ComposePlan
    public let clips: [ComposeClip]
    public let audioTrack: String?
    /// Asked between frames; true stops the work with `ComposeStopped`.
    public var isCancelled: () -> Bool = { false }
    /// Called with the output's seconds written so far, after each frame.
    public var progress: (Double) -> Void = { _ in }

    public init(plan: ComposePlan, clips: [ComposeClip], audioTrack: String? = nil) {
        self.plan = plan
        self.clips = clips
        self.audioTrack = audioTrack
    }

    /// Writes the whole output to `path` (an mp4, whatever its name ends with).
    public func write(to path: String) throws {
        if plan.mode == .streamCopy {
            let remuxer = Remuxer(clips: clips, withAudio: plan.hasAudio)
            remuxer.isCancelled = isCancelled
            remuxer.progress = progress
            try remuxer.write(to: path)
            return
        }
        try encode(to: path)
    }

    private func encode(to path: String) throws {
        let muxer = try Muxer(path: path)
        let rate = plan.frameRate
        let video = try VideoEncoder(size: plan.size, timeBase: rate.inverted, frameRate: rate)
        let videoStream = try muxer.addStream(from: video)
        let audio = plan.hasAudio ? try AudioEncoder() : nil
        let audioStream = try audio.map { try muxer.addStream(from: $0) }
        try muxer.start()
        let canvas = Canvas(size: plan.size)
        let scaler = Scaler()
        var written: Int64 = 0
        var span = AudioSpan(sampleRate: AudioEncoder.inputFormat.sampleRate)
        let music = try audioTrack.map { try PCMFeed(path: $0, loop: true) }
        let timeline = FrameRateMapper(rate: rate)
        for clip in clips {
            let reader = try VideoFrameReader(asset: try Asset(source: clip.path))
            let sound = try music ?? PCMFeed(path: plan.hasAudio && clip.hasAudio ? clip.path : nil, loop: false)
            var mapper = FrameRateMapper(rate: rate)
            var held: DecodedFrame?
            func emit(_ count: Int64) throws {
                guard count > 0, let held else { return }
                try scaler.draw(held, layout: Scaler.layout(for: held, on: plan.size, gravity: plan.gravity), into: canvas.buffer)
                for _ in 0..<count {
                    try video.encode(canvas.buffer, pts: written) { try muxer.write($0, stream: videoStream) }
                    written += 1
                }
                if let audio, let audioStream {
                    let samples = span.samples(untilVideoEnd: timeline.time(ofFrame: written))
                    try audio.append(interleaved: try sound.take(Int(samples))) { try muxer.write($0, stream: audioStream) }
                }
                progress(timeline.time(ofFrame: written).seconds)
            }
            while let frame = try reader.nextFrame() {
                if isCancelled() { throw ComposeStopped() }
                try emit(mapper.arrive(pts: frame.pts))
                held = frame
            }
            guard let last = mapper.heldPTS else { throw MediaError(source: clip.path, reason: "no picture could be decoded") }
            let frameDuration = (clip.frameRate.flatMap { $0.isKnownAndPositive ? $0 : nil } ?? rate).inverted
            try emit(mapper.finish(end: last + MediaTime(value: frameDuration.numerator, timescale: Int32(clamping: frameDuration.denominator))))
        }
        try video.finish { try muxer.write($0, stream: videoStream) }
        if let audio, let audioStream { try audio.finish { try muxer.write($0, stream: audioStream) } }
        try muxer.finish()
    }
}

/// A stop asked for while composing (SIGINT, SIGTERM): the caller removes the partial output.
public struct ComposeStopped: Error, CustomStringConvertible, Sendable {
    public init() {}
    public var description: String { "stopped before the end" }
}

/// An XRGB8888 picture of the output size that the scaler lays each frame out into.
final class Canvas {
    let buffer: PixelBuffer
    private let memory: UnsafeMutableRawPointer

    init(size: PixelSize) {
        let stride = size.width * 4
        memory = UnsafeMutableRawPointer.allocate(byteCount: stride * size.height, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: stride * size.height)
        buffer = PixelBuffer(base: memory, size: size, stride: stride, index: 0)
    }

    deinit { memory.deallocate() }
}

/// A clip's sound (or a track looped under the whole) as exactly as many samples as asked,
/// in `AudioEncoder.inputFormat`; silence where there is none (no sound, or past its end).
final class PCMFeed {
    private var reader: AudioSampleReader?
    private let loop: Bool
    private var pending: [UInt8] = []
    private var readSinceStart = false

    init(path: String?, loop: Bool) throws {
        self.loop = loop
        if let path { reader = try AudioSampleReader(asset: try Asset(source: path), output: AudioEncoder.inputFormat) }
    }

    func take(_ frames: Int) throws -> [UInt8] {
        let bytes = frames * AudioEncoder.inputFormat.bytesPerFrame
        while pending.count < bytes, let reader {
            if let chunk = try reader.nextChunk() {
                pending += chunk.bytes
                readSinceStart = readSinceStart || !chunk.bytes.isEmpty
            } else if loop && readSinceStart {
                try reader.seek(to: .zero)
                readSinceStart = false
            } else {
                self.reader = nil
            }
        }
        if pending.count < bytes { pending += repeatElement(0, count: bytes - pending.count) }
        let out = Array(pending.prefix(bytes))
        pending.removeFirst(bytes)
        return out
    }
}
