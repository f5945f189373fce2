import CFFmpeg
import CKioskShim
import KioskCore

/// The demux-feed-drain loop of a reader that decodes on the calling thread: reads the asset's
/// packets, feeds the chosen stream's to the decoder (keeping one it refused while full), and
/// drains it at the end. `VideoFrameReader` and `AudioFrameReader` are this loop with their
/// decoder; the player's pipeline feeds its decoders from a demux thread instead.
final class FrameReaderLoop<Decoder: FrameDecoding> {
    let asset: Asset
    let decoder: Decoder
    private let packet: UnsafeMutablePointer<AVPacket>
    private var demuxerFinished = false
    private var decoderFinished = false
    /// A packet the decoder refused while full (EAGAIN), to send before reading another.
    private var packetPending = false

    init(asset: Asset, decoder: Decoder) {
        self.asset = asset
        self.decoder = decoder
        packet = av_packet_alloc()
        // Only the chosen stream's packets are worth reading off the disk.
        for index in 0..<Int(asset.context.pointee.nb_streams) where index != decoder.stream.streamIndex {
            asset.stream(at: index).pointee.discard = AVDISCARD_ALL
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    /// The next frame in order, or nil at the end of the stream.
    func nextFrame() -> Decoder.Frame? {
        while !decoderFinished {
            switch decoder.receive() {
            case .frame(let frame): return frame
            case .finished: decoderFinished = true
            case .needsInput: feedDecoder()
            }
        }
        return nil
    }

    private func feedDecoder() {
        let stream = decoder.stream
        if packetPending {
            // The decoder was full last time; it has handed out frames since, so it takes it now.
            if stream.send(packet) { packetPending = false; av_packet_unref(packet) }
            return
        }
        while !demuxerFinished {
            if av_read_frame(asset.context, packet) < 0 {
                // End of file or a read error: either way nothing more will come; drain.
                demuxerFinished = true
                break
            }
            guard Int(packet.pointee.stream_index) == stream.streamIndex else {
                av_packet_unref(packet)
                continue
            }
            if stream.send(packet) { av_packet_unref(packet) } else { packetPending = true }
            return
        }
        _ = stream.send(nil)
    }

    /// Moves to the last keyframe at or before `time`; the frames that follow start there.
    func seek(to time: MediaTime) throws {
        let stream = decoder.stream
        let timeBase = Rational(Int64(stream.timeBase.num), Int64(stream.timeBase.den))
        let target = time.ticks(in: timeBase) + stream.startTicks
        let result = av_seek_frame(asset.context, Int32(stream.streamIndex), target, AVSEEK_FLAG_BACKWARD)
        if result < 0 {
            throw MediaError(source: asset.source, reason: "cannot seek to \(time.seconds) s: \(ffmpegErrorText(result))")
        }
        decoder.flush()
        if packetPending { av_packet_unref(packet); packetPending = false }
        demuxerFinished = false
        decoderFinished = false
    }
}
