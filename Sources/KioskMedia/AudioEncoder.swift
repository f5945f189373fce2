import CFFmpeg
import CKioskShim
import KioskCore

/// AAC (FFmpeg's own encoder, through libavcodec), stereo at 48 kHz. Takes interleaved 16-bit
/// samples in any amounts (what `AudioSampleReader` hands out in `AudioEncoder.inputFormat`)
/// and cuts them into the encoder's frames of `frameSize` samples, stamped by count, so the
/// track has no gap and no overlap whatever came in.
public final class AudioEncoder {
    /// What `append` takes.
    public static let inputFormat = AudioFormat.stereo48k
    let encoder: EncoderContext
    private let frame: UnsafeMutablePointer<AVFrame>
    public let frameSize: Int
    /// Samples (per channel) waiting for a whole frame.
    private var left: [Float] = []
    private var right: [Float] = []
    /// Samples handed to the encoder so far: the next frame's pts.
    public private(set) var samplesEncoded: Int64 = 0

    public init(bitRate: Int = 160_000) throws {
        let format = Self.inputFormat
        encoder = try EncoderContext(name: "aac", globalHeader: true, options: [:]) { context in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(format.sampleRate)
            av_channel_layout_default(&context.pointee.ch_layout, Int32(format.channels))
            context.pointee.bit_rate = Int64(bitRate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        }
        frameSize = Int(encoder.context.pointee.frame_size > 0 ? encoder.context.pointee.frame_size : 1024)
        guard let frame = av_frame_alloc() else { throw EncoderError("out of memory") }
        self.frame = frame
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    public var timeBase: AVRational { encoder.timeBase }

    /// Appends interleaved stereo s16 samples (`bytes`, `AudioEncoder.inputFormat`).
    public func append(interleaved bytes: [UInt8], sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        bytes.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Int16.self)
            var index = 0
            while index + 1 < samples.count {
                left.append(Float(Int16(littleEndian: samples[index])) / 32768)
                right.append(Float(Int16(littleEndian: samples[index + 1])) / 32768)
                index += 2
            }
        }
        try encodeWholeFrames(sink: sink)
    }

    /// Appends `count` samples of silence.
    public func appendSilence(_ count: Int, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard count > 0 else { return }
        left.append(contentsOf: repeatElement(0, count: count))
        right.append(contentsOf: repeatElement(0, count: count))
        try encodeWholeFrames(sink: sink)
    }

    /// Encodes what is left (a last, shorter frame) and drains the encoder.
    public func finish(sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if !left.isEmpty { try encodeFrame(count: left.count, sink: sink) }
        try encoder.encode(nil, sink: sink)
    }

    private func encodeWholeFrames(sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        while left.count >= frameSize { try encodeFrame(count: frameSize, sink: sink) }
    }

    private func encodeFrame(count: Int, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        av_frame_unref(frame)
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(Self.inputFormat.sampleRate)
        av_channel_layout_default(&frame.pointee.ch_layout, Int32(Self.inputFormat.channels))
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw EncoderError("out of memory") }
        for (channel, samples) in [left, right].enumerated() {
            let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
            samples.withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: count) }
        }
        left.removeFirst(count)
        right.removeFirst(count)
        frame.pointee.pts = samplesEncoded
        samplesEncoded += Int64(count)
        try encoder.encode(frame, sink: sink)
    }
}
