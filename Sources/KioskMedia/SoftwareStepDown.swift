import CFFmpeg
import KioskCore

/// What a decoder on a device keeps so that it can go on in software when one of its frames
/// cannot be copied down (a device that lost its memory, a driver's transfer that failed):
/// "a failure drops one step, with one line" (#33), and never a frame silently.
///
/// It keeps a copy of the stream's codec parameters and a reference to each packet sent since
/// the latest keyframe, up to `keptBytesLimit`. Stepping down opens the codec's software
/// decoder, sends it those packets again (before any new one) and drops what it decodes up to
/// the last frame handed out, as mpv's hwdec fallback re-sends the packets it queued: the
/// picture goes on at the frame after the last one shown, one GOP decoded twice. Where the GOP
/// outgrew the limit, the packets were let go and the software decoder starts at the next
/// keyframe (the last picture stays up until then).
final class SoftwareStepDown {
    /// The most packet bytes kept since a keyframe: a 1080p H.264 GOP of 8 s at 8 Mbit/s, a 4K
    /// HEVC one of 3 s at 20. The references keep the demuxer's buffers alive that long.
    static let keptBytesLimit = 8 << 20

    private var parameters: UnsafeMutablePointer<AVCodecParameters>?
    private let timing: StreamTiming
    private let limit: Int
    /// Packets sent since the latest keyframe, each a reference of its own.
    private var sinceKeyframe: [UnsafeMutablePointer<AVPacket>] = []
    private var keptBytes = 0
    /// The packets since the keyframe outgrew the limit and were let go.
    private var overflowed = false
    /// The device's decoder was told no packet follows (the drain at the end): the software
    /// one is told too, after the packets sent again.
    private var drained = false
    /// After the step down: packets for the software decoder before any new one (nil: the
    /// drain at the end, asked for while they were pending).
    private var replay: [UnsafeMutablePointer<AVPacket>?] = []
    /// After a step down with nothing to replay: packets are dropped until a keyframe.
    private var waitingForKeyframe = false
    /// The ticks of the latest frame handed out, and after the step down the one the software
    /// decoder catches up to (its frames up to it were shown already); nil once caught up.
    private var lastHandedOut: Int64?
    private var catchingUpThrough: Int64?
    private(set) var hasSteppedDown = false

    /// Nil where FFmpeg cannot copy the parameters (out of memory): a failed copy down then
    /// drops the frame, as before.
    init?(parameters source: UnsafePointer<AVCodecParameters>, timing: StreamTiming, keptBytesLimit: Int = keptBytesLimit) {
        guard let copy = avcodec_parameters_alloc() else { return nil }
        parameters = copy
        guard avcodec_parameters_copy(copy, source) >= 0 else {
            avcodec_parameters_free(&parameters)
            return nil
        }
        self.timing = timing
        limit = keptBytesLimit
    }

    deinit {
        forget()
        avcodec_parameters_free(&parameters)
    }

    /// `packet` was taken by the device's decoder: kept (a reference) from its keyframe on;
    /// nil: the drain.
    func keep(_ packet: UnsafePointer<AVPacket>?) {
        guard !hasSteppedDown else { return }
        guard let packet else {
            drained = true
            return
        }
        if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
            releaseKept()
            overflowed = false
        }
        guard !overflowed else { return }
        keptBytes += Int(packet.pointee.size)
        guard keptBytes <= limit, let reference = av_packet_clone(packet) else {
            releaseKept()
            overflowed = true
            return
        }
        sinceKeyframe.append(reference)
    }

    /// A frame of `ticks` was handed out.
    func handedOut(ticks: Int64?) {
        if let ticks { lastHandedOut = ticks }
    }

    /// The codec's software decoder, with the kept packets to send it first; how it starts
    /// ("at the frame after the last one shown", or "at the next keyframe") or why it cannot.
    func stepDown(source: String, configure: (UnsafeMutablePointer<AVCodecContext>) -> Void) -> Result<(StreamDecoder, String), MediaError> {
        guard let parameters else { return .failure(MediaError(source: source, reason: "no codec parameters")) }
        let decoder: StreamDecoder
        do {
            decoder = try StreamDecoder(parameters: parameters, of: timing, source: source, kind: "", configure: configure)
        } catch {
            return .failure(error as? MediaError ?? MediaError(source: source, reason: "\(error)"))
        }
        hasSteppedDown = true
        let resumes = !sinceKeyframe.isEmpty && !overflowed
        if resumes {
            replay = sinceKeyframe
            sinceKeyframe = []
            catchingUpThrough = lastHandedOut
        } else {
            releaseKept()
            waitingForKeyframe = true
        }
        if drained { replay.append(nil) }
        keptBytes = 0
        return .success((decoder, resumes ? "at the frame after the last one shown" : "at the next keyframe"))
    }

    /// What to do with a packet (nil: the drain) for the software decoder after the step down.
    enum Admission { case send, queued, dropped }

    func admit(_ packet: UnsafePointer<AVPacket>?) -> Admission {
        if !replay.isEmpty {
            replay.append(packet.flatMap { av_packet_clone($0) })
            return .queued
        }
        if waitingForKeyframe, let packet {
            guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0 else { return .dropped }
            waitingForKeyframe = false
        }
        return .send
    }

    /// The next packet to send again, owned by the caller (`.some(nil)`: the drain); nil when
    /// none is pending.
    func takeReplayed() -> UnsafeMutablePointer<AVPacket>?? {
        replay.isEmpty ? nil : .some(replay.removeFirst())
    }

    /// A packet taken from `takeReplayed` that the decoder could not take yet.
    func putBack(_ packet: UnsafeMutablePointer<AVPacket>?) {
        replay.insert(packet, at: 0)
    }

    /// Whether the software decoder's frame of `ticks` was shown already (from the device).
    func wasShown(ticks: Int64?) -> Bool {
        guard let through = catchingUpThrough, let ticks else { return false }
        if ticks <= through { return true }
        catchingUpThrough = nil   // caught up: later frames are never compared (a file's own
        return false              // timestamps may go back, and the retimer judges those)
    }

    /// A seek: nothing kept before it counts.
    func forget() {
        releaseKept()
        overflowed = false
        drained = false
        for packet in replay { var owned = packet; av_packet_free(&owned) }
        replay = []
        lastHandedOut = nil
        catchingUpThrough = nil
    }

    private func releaseKept() {
        for packet in sinceKeyframe { var owned: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&owned) }
        sinceKeyframe = []
        keptBytes = 0
    }
}
