import CFFmpeg
import CKioskShim
import KioskCore

/// Reads an asset's audio frames in order, demuxing and decoding on the calling thread, like
/// `VideoFrameReader` for pictures: tests, benchmarks and tools use it directly; the player's
/// pipeline feeds the decoder from its demux thread instead.
public final class AudioFrameReader {
    public let asset: Asset
    public let streamInfo: StreamInfo
    private let decoder: AudioDecoder
    private let packet: UnsafeMutablePointer<AVPacket>
    private var demuxerFinished = false
    private var decoderFinished = false
    private var packetPending = false
    /// After a seek: samples before this time are dropped, so reading starts exactly there.
    private var trimBefore: MediaTime?

    /// Opens the best audio stream of `asset`.
    public init(asset: Asset) throws {
        guard let audio = asset.info.bestAudio else {
            throw MediaError(source: asset.source, reason: "no audio stream (only \(asset.info.streams.map(\.kind.rawValue).joined(separator: ", ")))")
        }
        self.asset = asset
        streamInfo = audio
        decoder = try AudioDecoder(asset: asset, streamIndex: audio.index)
        packet = av_packet_alloc()
        for index in 0..<Int(asset.context.pointee.nb_streams) where index != audio.index {
            asset.stream(at: index).pointee.discard = AVDISCARD_ALL
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    public var damagedPackets: Int { decoder.damagedPackets }

    /// The next frame in order, or nil at the end of the stream.
    public func nextFrame() throws -> DecodedAudioFrame? {
        while !decoderFinished {
            switch decoder.receive() {
            case .frame(let frame):
                if let target = trimBefore {
                    guard frame.trim(before: target) else { continue }
                    trimBefore = nil
                }
                return frame
            case .finished: decoderFinished = true
            case .needsInput: feedDecoder()
            }
        }
        return nil
    }

    private func feedDecoder() {
        if packetPending {
            if decoder.send(packet) { packetPending = false; av_packet_unref(packet) }
            return
        }
        while !demuxerFinished {
            if av_read_frame(asset.context, packet) < 0 {
                demuxerFinished = true
                break
            }
            guard Int(packet.pointee.stream_index) == decoder.streamIndex else {
                av_packet_unref(packet)
                continue
            }
            if decoder.send(packet) { av_packet_unref(packet) } else { packetPending = true }
            return
        }
        _ = decoder.send(nil as UnsafeMutablePointer<AVPacket>?)
    }

    /// Moves so that the next frame starts exactly at `time` (or at the first sample after it
    /// when the stream starts later).
    public func seek(to time: MediaTime) throws {
        let timeBase = Rational(Int64(decoder.timeBase.num), Int64(decoder.timeBase.den))
        let target = time.ticks(in: timeBase) + decoder.startTicks
        let result = av_seek_frame(asset.context, Int32(decoder.streamIndex), target, AVSEEK_FLAG_BACKWARD)
        if result < 0 {
            throw MediaError(source: asset.source, reason: "cannot seek to \(time.seconds) s: \(ffmpegErrorText(result))")
        }
        decoder.flush()
        if packetPending { av_packet_unref(packet); packetPending = false }
        demuxerFinished = false
        decoderFinished = false
        trimBefore = time > .zero ? time : nil
    }
}
