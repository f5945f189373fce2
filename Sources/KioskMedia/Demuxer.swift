import CFFmpeg
import CKioskShim
import KioskCore

/// A compressed packet of one stream, moved (not copied) out of the demuxer: FFmpeg's packets
/// are ref-counted. Owned by one thread at a time, handed over through queues.
public final class Packet: @unchecked Sendable {
    let packet: UnsafeMutablePointer<AVPacket>

    init(moving source: UnsafeMutablePointer<AVPacket>) {
        packet = av_packet_alloc()
        av_packet_move_ref(packet, source)
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    public var streamIndex: Int { Int(packet.pointee.stream_index) }
    public var byteCount: Int { Int(packet.pointee.size) }
}

/// Reads packets of an asset's chosen video and audio streams (the demux thread's work).
public final class Demuxer {
    public let asset: Asset
    public let videoStream: Int?
    public let audioStream: Int?
    private let scratch: UnsafeMutablePointer<AVPacket>
    /// The latest end (pts + duration) seen per stream, from the item's start: once the demuxer
    /// has read everything, the item's length, known before playback reaches its end.
    public private(set) var endTime = MediaTime.zero
    /// The end of the packet `read` returned last, from the item's start; nil when it had no
    /// timestamp.
    public private(set) var lastPacketEnd: MediaTime?
    /// The latest end seen in the file's own time (`timeOffset` left out), and once the file
    /// was read to its end (or to a read error), its length so: one pass of a looped animation (`AnimationLoop`),
    /// which `endTime`, the furthest time handed out, is not after a seek back.
    public private(set) var fileEnd = MediaTime.zero
    public private(set) var fileLength: MediaTime?
    /// Added to every packet's times: a looped animation's later passes, read from the file's
    /// start again (`AnimationLoop`).
    public var timeOffset = MediaTime.zero
    /// For formats whose timestamps may jump (MPEG-TS, PS): the jumps taken out.
    private var continuity: TimestampContinuity?
    /// The format allows discontinuities (FFmpeg's AVFMT_TS_DISCONT: MPEG-TS, PS).
    public var timestampsMayJump: Bool { continuity != nil }

    public enum Output { case packet(Packet), end }

    /// Why the last `.end` came: nil at the end of the data, else FFmpeg's error code (a network
    /// source tells a dropped connection from its end by this).
    public private(set) var lastReadError: Int32?

    public init(asset: Asset, video: Bool = true, audio: Bool = true) {
        self.asset = asset
        videoStream = video ? asset.info.bestVideo.flatMap { $0.decodable ? $0.index : nil } : nil
        audioStream = audio ? asset.info.bestAudio.flatMap { $0.decodable ? $0.index : nil } : nil
        scratch = av_packet_alloc()
        if let format = asset.context.pointee.iformat, format.pointee.flags & AVFMT_TS_DISCONT != 0 {
            continuity = TimestampContinuity()
        }
        for index in 0..<Int(asset.context.pointee.nb_streams) where index != videoStream && index != audioStream {
            asset.stream(at: index).pointee.discard = AVDISCARD_ALL
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = scratch
        av_packet_free(&pointer)
    }

    /// The next packet of a chosen stream, or `.end` at the end of the file or on a read error
    /// (a damaged tail ends the item; it does not fail it).
    public func read() -> Output {
        guard asset.isOpen else { return .end }
        while true {
            let result = av_read_frame(asset.context, scratch)
            if result < 0 {
                lastReadError = result == kiosk_averror_eof() ? nil : result
                // A damaged tail (a read error, not EOF) ends every pass the same way.
                if fileEnd > .zero { fileLength = fileEnd }
                return .end
            }
            let index = Int(scratch.pointee.stream_index)
            guard index == videoStream || index == audioStream else {
                av_packet_unref(scratch)
                continue
            }
            makeContinuous(scratch, stream: index)
            if timeOffset != .zero { shift(scratch, stream: index) }
            noteEnd(of: scratch, stream: index)
            return .packet(Packet(moving: scratch))
        }
    }

    private func makeContinuous(_ packet: UnsafeMutablePointer<AVPacket>, stream index: Int) {
        guard continuity != nil else { return }
        var ticks = packet.pointee.dts
        if ticks == kiosk_nopts_value() { ticks = packet.pointee.pts }
        guard ticks != kiosk_nopts_value() else { return }
        let base = asset.stream(at: index).pointee.time_base
        let microseconds = AVRational(num: 1, den: AV_TIME_BASE)
        let offset = continuity!.correction(stream: index, timestamp: av_rescale_q(ticks, base, microseconds),
                                            duration: av_rescale_q(packet.pointee.duration, base, microseconds))
        guard offset != 0 else { return }
        let delta = av_rescale_q(offset, microseconds, base)
        if packet.pointee.pts != kiosk_nopts_value() { packet.pointee.pts += delta }
        if packet.pointee.dts != kiosk_nopts_value() { packet.pointee.dts += delta }
    }

    private func shift(_ packet: UnsafeMutablePointer<AVPacket>, stream index: Int) {
        let base = asset.stream(at: index).pointee.time_base
        guard base.num > 0, base.den > 0 else { return }
        let delta = timeOffset.ticks(in: Rational(Int64(base.num), Int64(base.den)))
        if packet.pointee.pts != kiosk_nopts_value() { packet.pointee.pts += delta }
        if packet.pointee.dts != kiosk_nopts_value() { packet.pointee.dts += delta }
    }

    private func noteEnd(of packet: UnsafeMutablePointer<AVPacket>, stream index: Int) {
        lastPacketEnd = nil
        var ticks = packet.pointee.pts
        if ticks == kiosk_nopts_value() { ticks = packet.pointee.dts }
        guard ticks != kiosk_nopts_value() else { return }
        let stream = asset.stream(at: index)
        let start = asset.originTicks(of: stream)
        let base = Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den))
        guard base.isKnownAndPositive else { return }
        let end = MediaTime(ticks: ticks - start + Swift.max(0, packet.pointee.duration), timeBase: base)
        lastPacketEnd = end
        if end > endTime { endTime = end }
        if end - timeOffset > fileEnd { fileEnd = end - timeOffset }
    }

    /// Moves to the last keyframe of the video (or audio) stream at or before `time`. A song's
    /// cover is no stream to seek in (FFmpeg refuses, EPERM): its sound is sought, and FFmpeg
    /// queues the cover again after the seek.
    public func seek(to time: MediaTime) throws {
        let cover = asset.info.bestVideo?.isCoverPicture == true   // the video stream chosen (`init`)
        guard let index = (cover ? audioStream : nil) ?? videoStream ?? audioStream else { return }
        guard asset.isOpen else { throw MediaError(source: asset.source, reason: "cannot seek: the input is closed (reconnecting)") }
        let stream = asset.stream(at: index)
        let base = Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den))
        let start = asset.originTicks(of: stream)
        let result = av_seek_frame(asset.context, Int32(index), time.ticks(in: base) + start, AVSEEK_FLAG_BACKWARD)
        if result < 0 {
            throw MediaError(source: asset.source, reason: "cannot seek to \(time.seconds) s: \(ffmpegErrorText(result))")
        }
        continuity?.reset()
    }
}
