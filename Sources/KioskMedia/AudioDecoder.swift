import CFFmpeg
import CKioskShim
import KioskCore

/// Decoded sound: a reference to FFmpeg's ref-counted AVFrame (no sample copy), in the
/// decoder's own format (often planar float). Owned by one thread at a time: handed over
/// through queues, never shared, hence @unchecked Sendable.
public final class DecodedAudioFrame: @unchecked Sendable {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Media time of the first sample, from the start of the item.
    public private(set) var pts: MediaTime

    init(taking frame: UnsafeMutablePointer<AVFrame>, pts: MediaTime) {
        self.frame = frame
        self.pts = pts
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&pointer)
    }

    public var frameCount: Int { Int(frame.pointee.nb_samples) }
    public var sampleRate: Int { Int(frame.pointee.sample_rate) }
    public var channels: Int { Int(frame.pointee.ch_layout.nb_channels) }
    public var duration: MediaTime { MediaTime(value: Int64(frameCount), timescale: Int32(max(1, sampleRate))) }
    public var endTime: MediaTime { pts + duration }

    public var sampleFormatName: String {
        av_get_sample_fmt_name(AVSampleFormat(frame.pointee.format)).map { String(cString: $0) } ?? "unknown"
    }

    /// Drops the samples before `time` (after a seek lands on the packet before the target);
    /// false, with nothing changed, when the whole frame is before it.
    public func trim(before time: MediaTime) -> Bool {
        guard endTime > time else { return false }
        dropLeading(time.ticks(in: Rational(1, Int64(max(1, sampleRate)))) - pts.ticks(in: Rational(1, Int64(max(1, sampleRate)))))
        return true
    }

    /// Drops the first `count` samples of every channel by moving the plane pointers (the
    /// buffers stay referenced by the frame).
    func dropLeading(_ count: Int64) {
        let count = Int(min(count, Int64(frameCount)))
        guard count > 0 else { return }
        let format = AVSampleFormat(frame.pointee.format)
        let planar = av_sample_fmt_is_planar(format) != 0
        let bytesPerSample = Int(av_get_bytes_per_sample(format))
        let planes = planar ? channels : 1
        let offset = count * bytesPerSample * (planar ? 1 : channels)
        let extended = frame.pointee.extended_data!
        for plane in 0..<planes { extended[plane] = extended[plane].map { $0 + offset } }
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { pointers in
                // extended_data is data itself for up to 8 planes: moved above already.
                if pointers != extended {
                    for plane in 0..<min(8, planes) { pointers[plane] = pointers[plane].map { $0 + offset } }
                }
            }
        }
        frame.pointee.nb_samples -= Int32(count)
        pts = pts + MediaTime(value: Int64(count), timescale: Int32(sampleRate))
    }
}

/// FFmpeg's decoder for one audio stream: demuxed packets in, `DecodedAudioFrame`s out.
public final class AudioDecoder: FrameDecoding {
    let stream: StreamDecoder
    /// Where the last frame ended: a frame without a timestamp follows on from it.
    private var previousEnd: MediaTime?

    public init(asset: Asset, streamIndex: Int) throws {
        let parameters = asset.stream(at: streamIndex).pointee.codecpar!
        guard parameters.pointee.sample_rate > 0, parameters.pointee.ch_layout.nb_channels > 0 else {
            throw MediaError(source: asset.source, reason: "audio stream has no sample rate or channels (\(StreamDecoder.codecName(of: parameters)))")
        }
        stream = try StreamDecoder(asset: asset, streamIndex: streamIndex, kind: "audio ")
    }

    public var streamIndex: Int { stream.streamIndex }
    /// Packets the decoder rejected as damaged; playback goes on past them.
    public var damagedPackets: Int { stream.damagedPackets }

    /// Feeds a demuxed packet, or nil to drain at the end; false when the decoder is full.
    public func send(_ packet: Packet?) -> Bool {
        stream.send(packet?.packet)
    }

    public typealias Output = DecoderOutput<DecodedAudioFrame>

    /// The next decoded frame, `needsInput` when a packet must be sent first, `finished` once
    /// drained. Frames without samples are passed over.
    public func receive() -> Output {
        while true {
            let frame: UnsafeMutablePointer<AVFrame>
            switch stream.receive() {
            case .frame(let received): frame = received
            case .needsInput: return .needsInput
            case .finished: return .finished
            }
            guard frame.pointee.nb_samples > 0, frame.pointee.sample_rate > 0 else {
                var pointer: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&pointer)
                continue
            }
            let pts = stream.ticks(of: frame).map { stream.mediaTime(ticks: $0) } ?? previousEnd ?? .zero
            let decoded = DecodedAudioFrame(taking: frame, pts: pts)
            previousEnd = decoded.endTime
            return .frame(decoded)
        }
    }

    /// Forgets buffered samples after a seek.
    public func flush() {
        stream.flush()
        previousEnd = nil
    }
}
