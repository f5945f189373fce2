import CFFmpeg
import CKioskShim
import KioskCore

/// What a decoder on a device keeps so that it can go on in software when one of its frames
/// cannot be copied down (a device that lost its memory, a driver's transfer that failed):
/// "a failure drops one step, with one line" (#33), and never a frame silently.
///
/// It keeps a copy of the stream's codec parameters and a reference to each packet sent since
/// the latest keyframe, up to `keptBytesLimit`, and the GOP before it until a frame of the
/// latest has been handed out: a decoder hands out the last frames of a GOP after the next
/// keyframe was sent (its reorder and frame-thread delay). Stepping down opens the codec's
/// software decoder, sends it those packets again (before any new one) and drops what it
/// decodes up to the last frame handed out, as mpv's hwdec fallback re-sends the packets it
/// queued: the picture goes on at the frame after the last one shown. Where the packets
/// outgrew the limit they were let go and the software decoder starts at the next keyframe
/// (the last picture stays up until then; after `keyframeWait` packets without one, at the
/// next packet, for streams refreshed without keyframes).
///
/// The catch-up decodes up to a GOP in software within one `receive` (seconds of 4K on a small
/// box), once, on the decode thread: the queued frames cover part of it. A keyframe that is not
/// a clean start (an open GOP's I-frame, HEVC's CRA) loses its leading frames in the replay.
final class SoftwareStepDown {
    /// The most packet bytes kept since a keyframe: a 1080p H.264 GOP of 8 s at 8 Mbit/s, a 4K
    /// HEVC one of 3 s at 20. The references keep the demuxer's buffers alive that long.
    static let keptBytesLimit = 8 << 20

    private var parameters: UnsafeMutablePointer<AVCodecParameters>?
    private let timing: StreamTiming
    private let limit: Int
    /// The packets kept, a group from each keyframe (each a reference of its own): the latest
    /// group and, until a frame of it was handed out, the one before.
    private var groups: [[UnsafeMutablePointer<AVPacket>]] = []
    /// The latest group's keyframe's timestamp (nil: it has none, or no group has a keyframe).
    private var latestKeyTicks: Int64?
    private var keptBytes = 0
    /// The packets kept outgrew the limit and were let go, until the next keyframe.
    private var overflowed = false
    /// Packets a step down waits for a keyframe at most: 10 s at 25 fps.
    static let keyframeWait = 250
    private var waited = 0
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
            if groups.count == 2 { releaseOldest() }
            groups.append([])
            latestKeyTicks = packet.pointee.pts == kiosk_nopts_value() ? nil : packet.pointee.pts
            overflowed = false
        }
        guard !overflowed else { return }
        guard let reference = av_packet_clone(packet) else {
            overflow()
            return
        }
        if groups.isEmpty { groups.append([]) }   // the decoder took packets before any keyframe
        groups[groups.count - 1].append(reference)
        keptBytes += Int(packet.pointee.size)
        if keptBytes > limit, groups.count == 2 { releaseOldest() }
        if keptBytes > limit { overflow() }
    }

    /// A frame of `ticks` was handed out: once it is the latest keyframe's or later, the group
    /// before is not needed again.
    func handedOut(ticks: Int64?) {
        guard let ticks else { return }
        lastHandedOut = ticks
        if groups.count == 2, let key = latestKeyTicks, ticks >= key { releaseOldest() }
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
        let resumes = !groups.isEmpty && !overflowed
        if resumes {
            replay = groups.flatMap { $0 }
            groups = []
            catchingUpThrough = lastHandedOut
        } else {
            releaseKept()
            waitingForKeyframe = true
            waited = 0
        }
        if drained { replay.append(nil) }
        keptBytes = 0
        return .success((decoder, resumes ? "at the frame after the last one shown" : "at the next keyframe"))
    }

    /// What to do with a packet (nil: the drain) for the software decoder after the step down.
    enum Admission { case send, queued, dropped }

    func admit(_ packet: UnsafePointer<AVPacket>?) -> Admission {
        if !replay.isEmpty {
            guard let packet else {
                replay.append(nil)
                return .queued
            }
            // Out of memory: that packet is lost (never taken for the drain).
            guard let reference = av_packet_clone(packet) else { return .dropped }
            replay.append(reference)
            return .queued
        }
        if waitingForKeyframe, let packet {
            waited += 1
            guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0 || waited > Self.keyframeWait else { return .dropped }
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
        waitingForKeyframe = false
        latestKeyTicks = nil
        for packet in replay { var owned = packet; av_packet_free(&owned) }
        replay = []
        lastHandedOut = nil
        catchingUpThrough = nil
    }

    private func overflow() {
        releaseKept()
        overflowed = true
    }

    private func releaseKept() {
        while !groups.isEmpty { releaseOldest() }
        keptBytes = 0
    }

    private func releaseOldest() {
        for packet in groups.removeFirst() {
            keptBytes -= Int(packet.pointee.size)
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
    }
}
