import CFFmpeg
import CKioskShim
import KioskCore

/// Joins clips whose codec parameters all match by copying their packets (no decoder, no
/// encoder): each clip's timestamps moved to start where the one before it ended.
final class Remuxer {
    let clips: [ComposeClip]
    let withAudio: Bool
    var isCancelled: () -> Bool = { false }
    var progress: (Double) -> Void = { _ in }

    init(clips: [ComposeClip], withAudio: Bool) {
        self.clips = clips
        self.withAudio = withAudio
    }

    func write(to path: String) throws {
        let muxer = try Muxer(path: path)
        let first = try Asset(source: clips[0].path)
        guard let firstVideo = first.info.bestVideo else { throw MediaError(source: first.source, reason: "no video stream") }
        let firstAudio = withAudio ? first.info.bestAudio : nil
        let videoOut = try muxer.addStream(copying: first, stream: firstVideo.index)
        let audioOut = try firstAudio.map { try muxer.addStream(copying: first, stream: $0.index) }
        // Packets are stamped in the first clip's stream time bases (the muxer's source ones).
        let outBases = [first.stream(at: firstVideo.index).pointee.time_base] + (firstAudio.map { [first.stream(at: $0.index).pointee.time_base] } ?? [])
        try muxer.start()
        var offset = MediaTime.zero
        var lastDTS: [Int64?] = Array(repeating: nil, count: outBases.count)
        let packet = av_packet_alloc()!
        defer { var pointer: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&pointer) }
        for (number, clip) in clips.enumerated() {
            let asset = number == 0 ? first : try Asset(source: clip.path)
            guard let video = asset.info.bestVideo else { throw MediaError(source: clip.path, reason: "no video stream") }
            var routes = [video.index: videoOut]
            if let audioOut, let audio = asset.info.bestAudio { routes[audio.index] = audioOut }
            var end = offset
            var bump: [Int: Int64] = [:]
            while av_read_frame(asset.context, packet) >= 0 {
                defer { av_packet_unref(packet) }
                if isCancelled() { throw ComposeStopped() }
                let input = Int(packet.pointee.stream_index)
                guard let out = routes[input] else { continue }
                let stream = asset.stream(at: input)
                let base = Rational(Int64(stream.pointee.time_base.num), Int64(stream.pointee.time_base.den))
                let outBase = Rational(Int64(outBases[out].num), Int64(outBases[out].den))
                let shift = offset.ticks(in: outBase) - MediaTime(ticks: asset.originTicks(of: stream), timeBase: base).ticks(in: outBase)
                av_packet_rescale_ts(packet, stream.pointee.time_base, outBases[out])
                move(packet, by: shift + bump[out, default: 0])
                // Decode order must go on rising across the join (B-frame delays differ).
                if let last = lastDTS[out], packet.pointee.dts != kiosk_nopts_value(), packet.pointee.dts <= last {
                    let extra = last + 1 - packet.pointee.dts
                    bump[out, default: 0] += extra
                    move(packet, by: extra)
                }
                if packet.pointee.dts != kiosk_nopts_value() { lastDTS[out] = packet.pointee.dts }
                if out == videoOut, packet.pointee.pts != kiosk_nopts_value() {
                    let packetEnd = MediaTime(ticks: packet.pointee.pts + max(0, packet.pointee.duration), timeBase: outBase)
                    if packetEnd > end { end = packetEnd }
                    progress(packetEnd.seconds)
                }
                try muxer.write(packet, stream: out)
            }
            offset = end
        }
        try muxer.finish()
    }

    private func move(_ packet: UnsafeMutablePointer<AVPacket>, by ticks: Int64) {
        if packet.pointee.pts != kiosk_nopts_value() { packet.pointee.pts += ticks }
        if packet.pointee.dts != kiosk_nopts_value() { packet.pointee.dts += ticks }
    }
}
