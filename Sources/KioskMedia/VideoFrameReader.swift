import CFFmpeg
import CKioskShim
import KioskCore

/// Reads an asset's video frames in order, demuxing and decoding on the calling thread.
/// Snapshots and benchmarks use it directly; the player's pipeline runs one per item on its
/// decode thread.
public final class VideoFrameReader {
    public let asset: Asset
    private let decoder: VideoDecoder
    private let packet: UnsafeMutablePointer<AVPacket>
    private var demuxerFinished = false
    private var decoderFinished = false
    /// A packet the decoder refused while full (EAGAIN), to send before reading another.
    private var packetPending = false

    /// Opens the best video stream of `asset`; `threads` 0 lets FFmpeg choose (one per core + 1).
    public init(asset: Asset, threads: Int = 0) throws {
        guard let video = asset.info.bestVideo else {
            throw MediaError(source: asset.source, reason: "no video stream (only \(asset.info.streams.map(\.kind.rawValue).joined(separator: ", ")))")
        }
        self.asset = asset
        decoder = try VideoDecoder(asset: asset, streamIndex: video.index, threads: threads)
        packet = av_packet_alloc()
        // Only the chosen stream's packets are worth reading off the disk.
        for index in 0..<Int(asset.context.pointee.nb_streams) where index != video.index {
            asset.stream(at: index).pointee.discard = AVDISCARD_ALL
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    public var damagedPackets: Int { decoder.damagedPackets }

    /// The next frame in presentation order, or nil at the end of the stream.
    public func nextFrame() throws -> DecodedFrame? {
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
        if packetPending {
            // The decoder was full last time; it has handed out frames since, so it takes it now.
            if decoder.send(packet) { packetPending = false; av_packet_unref(packet) }
            return
        }
        while !demuxerFinished {
            if av_read_frame(asset.context, packet) < 0 {
                // End of file or a read error: either way nothing more will come; drain.
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
        _ = decoder.send(nil as Packet?)
    }

    /// Moves to the last keyframe at or before `time`; the frames that follow start there, so a
    /// caller wanting the exact frame reads on until it reaches `time`.
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
    }

    /// The frame on screen at `time`: the last one whose pts is not after it.
    public func frame(at time: MediaTime) throws -> DecodedFrame? {
        if time > .zero { try seek(to: time) }
        var shown: DecodedFrame? = nil
        while let frame = try nextFrame() {
            if frame.pts > time, shown != nil { break }
            shown = frame
            if frame.pts == time { break }
        }
        return shown
    }
}
