import Foundation
import CFFmpeg
import CKioskShim
import KioskCore

/// `kiosk record`'s work: a V4L2 capture device (FFmpeg's v4l2 demuxer through libavdevice,
/// opened like a `v4l2://` item) encoded to H.264 in an mp4 with the device's own timestamps,
/// until a length of pts is reached or a stop is asked for; either way the file is finished
/// (its index written) so what was recorded plays. Runs on the calling thread.
public final class Recorder {
    public let device: String
    public let asset: Asset
    private let reader: VideoFrameReader

    /// Opens `device` (/dev/videoN); a missing or busy one throws one line naming it.
    public init(device: String) throws {
        self.device = device
        asset = try Asset(source: "v4l2://" + device)
        reader = try VideoFrameReader(asset: asset, threads: 1)
    }

    /// Cancels a read the device does not answer (a stop while it is silent).
    public var interrupt: InterruptFlag { asset.interrupt }

    public struct Result: Sendable {
        public var frames: Int
        /// From the first frame's pts to the end of the last one.
        public var seconds: Double
        public var size: PixelSize
    }

    /// The timestamps' unit in the file.
    static let timeBase = Rational(1, 90_000)

    /// Records into `path` until `duration` seconds of pts, `shouldStop()` or the device's end;
    /// with `audio` (started already) its sound too, lined up by the devices' timestamps and
    /// cut or padded to the pictures' length.
    public func record(to path: String, duration: Double, audio: AudioCapture? = nil, shouldStop: () -> Bool,
                       progress: (Double) -> Void) throws -> Result {
        guard let first = try reader.nextFrame() else {
            throw MediaError(source: device, reason: "the device sent no picture")
        }
        let arrival = ProcessInfo.processInfo.systemUptime
        let video = asset.info.bestVideo
        let rate = video?.frameRate.flatMap { $0.isKnownAndPositive ? $0 : nil } ?? Rational(30, 1)
        // 4:2:0 needs even sizes: an odd one loses its last row or column.
        let size = PixelSize(width: max(2, first.size.width & ~1), height: max(2, first.size.height & ~1))
        let muxer = try Muxer(path: path)
        // Live: the fastest preset, so a small box keeps up with the device.
        let encoder = try VideoEncoder(size: size, timeBase: Self.timeBase, frameRate: rate, preset: "ultrafast", crf: 23)
        let stream = try muxer.addStream(from: encoder)
        let sound = audio == nil ? nil : try AudioEncoder()
        let soundStream = try sound.map { try muxer.addStream(from: $0) }
        try muxer.start()
        let videoStart = AudioCapture.VideoStart(timestamp: (asset.startSeconds ?? 0) + first.pts.seconds,
                                                 arrival: arrival)
        let sampleRate = Rational(1, Int64(AudioEncoder.inputFormat.sampleRate))
        func addSound(until time: MediaTime, pad: Bool) throws {
            guard let audio, let sound, let soundStream else { return }
            let bytes = audio.take(until: time.ticks(in: sampleRate), video: videoStart, pad: pad)
            try sound.append(interleaved: bytes) { try muxer.write($0, stream: soundStream) }
        }
        let tail = HeldPacket()
        let write = { (packet: UnsafeMutablePointer<AVPacket>) throws in try tail.pass(packet) { try muxer.write($0, stream: stream) } }
        let origin = first.pts
        let frameLength = MediaTime(value: rate.denominator, timescale: Int32(clamping: rate.numerator))
        let limit = MediaTime(seconds: duration)
        var frames = 0
        var lastPTS: Int64 = -1
        var end = MediaTime.zero
        var frame: DecodedFrame? = first
        while let current = frame {
            let time = current.pts - origin
            // A frame at or past the limit ends the recording exactly there: the last one shown
            // stays until then (the device's clock says so, not the time the box took).
            if time >= limit { end = limit; break }
            let pts = time.ticks(in: Self.timeBase)
            // Timestamps from a device are untrusted: one that does not move on is dropped.
            if pts > lastPTS {
                try encoder.encode(current, pts: pts, sink: write)
                lastPTS = pts
                frames += 1
                end = time + frameLength
                try addSound(until: time, pad: false)
                progress(time.seconds)
            }
            if shouldStop() { break }
            frame = try reader.nextFrame()
        }
        try encoder.finish(sink: write)
        try tail.flush(lastEnd: end.ticks(in: Self.timeBase)) { try muxer.write($0, stream: stream) }
        if let audio, let sound, let soundStream {
            audio.stop()
            try addSound(until: end, pad: true)
            try sound.finish { try muxer.write($0, stream: soundStream) }
        }
        try muxer.finish()
        return Result(frames: frames, seconds: end.seconds, size: size)
    }
}

/// Keeps back the latest packet so that the last one's duration can be set when the recording
/// ends: an mp4's length is its last sample's time plus that duration.
final class HeldPacket {
    private let packet = av_packet_alloc()!
    private var holding = false

    deinit {
        var pointer: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&pointer)
    }

    /// Writes the one held before and keeps `next` instead.
    func pass(_ next: UnsafeMutablePointer<AVPacket>, write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        if holding { try write(packet); av_packet_unref(packet) }
        guard av_packet_ref(packet, next) >= 0 else { throw EncoderError("out of memory") }
        holding = true
    }

    /// Writes the last packet, lasting until `lastEnd` (in its time base) when that is later than its pts.
    func flush(lastEnd: Int64, write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        guard holding else { return }
        if lastEnd > packet.pointee.pts { packet.pointee.duration = lastEnd - packet.pointee.pts }
        try write(packet)
        av_packet_unref(packet)
        holding = false
    }
}
