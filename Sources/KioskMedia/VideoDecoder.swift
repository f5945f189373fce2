import CFFmpeg
import CKioskShim
import KioskCore

/// FFmpeg's decoder for one video stream, with frame threads (several frames decode at once on
/// several cores: the one thing that makes 1080p cheap on small boxes).
public final class VideoDecoder: FrameDecoding {
    /// The codec's decoder; a software one after a `stepDown`.
    private(set) var stream: StreamDecoder
    let sampleAspect: Rational
    let rotation: Rotation
    /// A still's EXIF orientation, applied to each of its frames; nil for a video.
    private let still: StillOrientation?
    /// The mjpeg decoder's `lowres` level for a large JPEG still (0: full size).
    public let lowres: Int
    /// The device's pixel format when decoding on one (its frames copied down); nil in software.
    private var hardwareFormat: AVPixelFormat?
    /// On a device: how to go on in software when a frame cannot be copied down.
    private var stepDown: SoftwareStepDown?
    /// How a device frame is copied down (a test's fails where it says).
    private let download: (UnsafeMutablePointer<AVFrame>, FramePool) -> Result<UnsafeMutablePointer<AVFrame>, HardwareDecodeFailure>
    /// The software decoder's settings (threads, lowres), for a step down.
    private let configureInSoftware: (UnsafeMutablePointer<AVCodecContext>) -> Void
    /// Damaged packets counted by a decoder stepped down from.
    private var damagedBefore = 0
    /// Whether a device's frames are also handed on where they are (DRM PRIME); off after one cannot be.
    private var primeFrames: Bool
    /// The engine's display's wishes for them (nil: never handed on).
    private let handOn: PrimeHandOn?
    /// What the `hardware` choice came to, in one line (nil with `hardware: .off`); logged
    /// once per process through `HardwareDecodeLog`.
    public let hardwareOutcome: String?
    /// Why a device was opened but a frame came back in software (FFmpeg's hwaccel starts at the
    /// first frame, after `hardwareOutcome`, and refuses a profile or size the block lacks, or a
    /// missing NVDEC library, in `get_format`), read after `receive`; two can come within one
    /// (a PRIME refusal, then a step down).
    private var hardwareRefusals: [String] = []
    /// Whether the latest frame came from the device (nil before the first one).
    public private(set) var lastFrameOnDevice: Bool?
    private let hardwareWay: String?
    /// The screens a video frame is drawn on (`DecodeShrink`): a frame larger than they need
    /// is scaled down here, before it is queued. Empty: frames are queued as decoded.
    public var shrinkCovering: [PixelSize] = []
    private lazy var shrinker = FrameShrinker(threads: threads)
    /// Which frames are woven whole (`Deinterlacer`): those flagged interlaced (auto), all
    /// (on) or none (off). Stills and device frames handed on as DRM PRIME never are.
    public var deinterlace = Deinterlacing.auto
    /// Decoded frames the deinterlacer holds at once, besides those queued.
    public static let deinterlacerHeldFrames = Deinterlacer.heldFrames
    /// Built at the first frame flagged interlaced; nil again after a seek.
    var deinterlacer: Deinterlacer?
    /// What the deinterlacing came to, once per stream (`takeDeinterlaceNote`); `isProblem`
    /// when frames are shown combed for want of the filter.
    var deinterlaceNote: (line: String, isProblem: Bool)?
    var saidDeinterlacing = false
    /// A frame the deinterlacer could not be built for: shown as decoded, next.
    var deliverUnwoven: UnsafeMutablePointer<AVFrame>?
    /// The blocks a hardware decoder's frames are copied down into.
    private lazy var downloads = FramePool()
    private let threads: Int
    /// The asset's name, for the lines that name it.
    let source: String

    /// `stillScreen`: the screen a JPEG still will be shown on; when given, a large one is
    /// decoded at the smallest `lowres` size that still covers it (`StillDecodeScale`).
    /// `hardware`: the hardware decoders to try first (`playback.hwdec`); each falls back to
    /// the next, the last to software. `heldFrames`: how many decoded frames the caller may
    /// hold at once (its queue and display: `HardwareFramePool`), by which a device's pool or a
    /// V4L2 wrapper's capture buffers grow. `handOn`: a device's frames are also handed on
    /// where they are, as DRM PRIME (`DecodedFrame.prime`), for the display's zero-copy path
    /// while it wants them (nil: never).
    public convenience init(asset: Asset, streamIndex: Int, threads: Int = 0, stillScreen: PixelSize? = nil,
                            hardware: HardwareDecoding = .off, heldFrames: Int = 0, handOn: PrimeHandOn? = nil) throws {
        try self.init(asset: asset, streamIndex: streamIndex, threads: threads, stillScreen: stillScreen, hardware: hardware,
                      heldFrames: heldFrames, handOn: handOn, prepare: HardwareDecoderSetup.prepare)
    }

    /// `prepare`: how each hardware way is set up (a test's stands in for a device it has not);
    /// `download`: how a device frame is copied down; `keptBytes`: the packet bytes kept for a
    /// step down to software (`SoftwareStepDown`); `stepDownSettings`: the step down's decoder
    /// settings in place of the stream's (a test makes that decoder fail to open).
    init(asset: Asset, streamIndex: Int, threads: Int, stillScreen: PixelSize?, hardware: HardwareDecoding, heldFrames: Int,
         handOn: PrimeHandOn?, prepare: (HardwareDecodeAttempt, AVCodecID) -> Result<HardwareDecoderSetup, HardwareDecodeFailure>,
         download: @escaping (UnsafeMutablePointer<AVFrame>, FramePool) -> Result<UnsafeMutablePointer<AVFrame>, HardwareDecodeFailure>
             = HardwareDecoderSetup.downloaded,
         keptBytes: Int = SoftwareStepDown.keptBytesLimit, stepDownSettings: ((UnsafeMutablePointer<AVCodecContext>) -> Void)? = nil) throws {
        self.threads = threads
        self.download = download
        self.handOn = handOn
        let primeFrames = handOn != nil
        source = asset.source
        self.primeFrames = false   // set once a device that exports DRM PRIME is open
        let avStream = asset.stream(at: streamIndex)
        let parameters = avStream.pointee.codecpar!
        let codecName = StreamDecoder.codecName(of: parameters)
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        let limit = Asset.maximumPictureSize
        guard width > 0, height > 0 else {
            // FFmpeg's probe says why when it can ("Picture size 16384x16384 is invalid").
            if codecName == "webp", AnimatedWebP.isAnimated(path: asset.source) {
                throw MediaError(source: asset.source, reason: AnimatedWebP.reason)
            }
            let why = asset.probeError.map { ": \($0)" } ?? ""
            throw MediaError(source: asset.source, reason: "video stream has no picture size (\(codecName))\(why)")
        }
        guard width <= limit.width, height <= limit.height else {
            throw MediaError(source: asset.source,
                             reason: "picture is \(width)x\(height); kiosk plays up to \(limit.width)x\(limit.height)")
        }
        still = StillOrientation(asset: asset, streamIndex: streamIndex)
        var level = 0
        let isJPEG = parameters.pointee.codec_id == AV_CODEC_ID_MJPEG
        if still != nil, let stillScreen, isJPEG {
            level = StillDecodeScale.lowres(picture: PixelSize(width: width, height: height), screen: stillScreen)
        }
        // A song's cover picture is not refused: the item's sound plays whatever its cover costs.
        let isCover = (avStream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
        if still != nil && !isCover {
            let bits = av_pix_fmt_desc_get(AVPixelFormat(parameters.pointee.format)).map { Int(av_get_bits_per_pixel($0)) } ?? 0
            if let refusal = StillSizeLimit.refusal(picture: PixelSize(width: width, height: height), lowres: level,
                                                    bitsPerPixel: bits, reducible: isJPEG) {
                throw MediaError(source: asset.source, reason: refusal)
            }
        }
        let configure: (UnsafeMutablePointer<AVCodecContext>) -> Void = { context in
            context.pointee.thread_count = Int32(threads)
            context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            // mjpeg's ceiling is 3, StillDecodeScale's too (avcodec_open2 would clamp it anyway;
            // AVCodec.max_lowres is not read, to stay off fields FFmpeg may move).
            context.pointee.lowres = Int32(level)
        }
        var failures: [String] = []
        var opened: (StreamDecoder, HardwareDecodeAttempt, AVPixelFormat?)?
        for attempt in hardware.attempts(codec: codecName) where opened == nil {
            switch prepare(attempt, parameters.pointee.codec_id) {
            case .failure(let why):
                failures.append("\(attempt): \(why)")
            case .success(let setup):
                do {
                    let decoder = try StreamDecoder(asset: asset, streamIndex: streamIndex, kind: "", decoder: setup.codec) {
                        configure($0)
                        setup.configure($0, heldFrames: heldFrames, keepsFramesOnDevice: primeFrames && Self.exportsPrime(attempt))
                    }
                    opened = (decoder, attempt, setup.hardwareFormat)
                } catch {
                    failures.append("\(attempt): \((error as? MediaError)?.reason ?? "\(error)")")
                }
            }
        }
        if let (decoder, attempt, format) = opened {
            stream = decoder
            hardwareFormat = format
            stepDown = format == nil ? nil : SoftwareStepDown(parameters: parameters, timing: decoder.timing, keptBytesLimit: keptBytes)
            self.primeFrames = primeFrames && format != nil && Self.exportsPrime(attempt)
            // A device frame is copied down (screenshots, the OSD, transitions and the CPU path
            // read it); with `primeFrames` the device's own picture rides along for the
            // display's zero-copy path, which scans it out where the plane takes it, and once it
            // does, the frames are left on the device (`PrimeHandOn.copyDown`).
            let handling = self.primeFrames ? ", frames copied to memory until the video plane shows them as DRM PRIME"
                : ", frames copied to memory"
            hardwareOutcome = "hardware decoding: \(attempt) for \(codecName)" + (format == nil ? "" : handling)
            hardwareWay = format == nil ? nil : "hardware decoding: \(attempt) opened for \(codecName)"
        } else {
            stream = try StreamDecoder(asset: asset, streamIndex: streamIndex, kind: "", configure: configure)
            hardwareFormat = nil
            stepDown = nil
            hardwareWay = nil
            hardwareOutcome = failures.isEmpty ? nil
                : "hardware decoding (hwdec: \(hardware.rawValue)) not available for \(codecName): "
                  + failures.joined(separator: "; ") + "; decoding in software"
        }
        lowres = level
        configureInSoftware = stepDownSettings ?? configure
        let sar = avStream.pointee.sample_aspect_ratio.num > 0 ? avStream.pointee.sample_aspect_ratio : parameters.pointee.sample_aspect_ratio
        sampleAspect = sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : .one
        rotation = Rotation(degrees: Asset.rotationDegrees(of: avStream)) ?? .none
    }

    deinit {
        var unwoven = deliverUnwoven
        av_frame_free(&unwoven)
    }

    /// The lines saying the device stopped decoding this stream, in order, once per such change
    /// (each its own reason, said once per process by `HardwareDecodeLog`); none after.
    public func takeHardwareRefusals() -> [String] {
        defer { hardwareRefusals = [] }
        return hardwareRefusals
    }
    /// Those lines as one ("; then " between them); nil when there are none.
    public func takeHardwareRefusal() -> String? { HardwareDecodeLog.joined(takeHardwareRefusals()) }

    /// Keeps `line` to be taken, after one not taken yet rather than in its place.
    private func say(_ line: String) { hardwareRefusals.append(line) }

    /// Packets the decoder rejected as damaged; playback goes on past them.
    public var damagedPackets: Int { damagedBefore + stream.damagedPackets }

    public typealias Output = DecoderOutput<DecodedFrame>

    public func receive() -> Output {
        while true {
            if let woven = deinterlacer?.pull() { return .frame(wrap(woven, prime: nil, inMemory: true)) }
            switch nextFrame() {
            case .needsInput:
                return .needsInput
            case .finished:
                if deinterlacer?.finish() == true { continue }   // its held frame, then the end
                return .finished
            case .frame(let frame, let prime, let inMemory):
                guard prime == nil, still == nil, deinterlace != .off,
                      deinterlacer != nil || deinterlace == .on || kiosk_frame_is_interlaced(frame) != 0 else {
                    return .frame(wrap(frame, prime: prime, inMemory: inMemory))
                }
                weave(frame)
            }
        }
    }

    private enum Decoded {
        /// `inMemory` false: the device's frame, left there (its `PrimeFrame` is shown).
        case frame(UnsafeMutablePointer<AVFrame>, PrimeFrame?, inMemory: Bool)
        case needsInput, finished
    }

    /// The decoder's next frame in memory (a device's copied down), with the device's own when
    /// it is handed on as DRM PRIME.
    private func nextFrame() -> Decoded {
        if let frame = deliverUnwoven {
            deliverUnwoven = nil
            return .frame(frame, nil, inMemory: true)
        }
        while true {
            var frame: UnsafeMutablePointer<AVFrame>
            switch stream.receive() {
            case .frame(let received): frame = received
            case .needsInput:
                guard let replayed = stepDown?.takeReplayed() else { return .needsInput }
                sendAgain(replayed)
                continue
            case .finished: return .finished
            }
            let ticks = stream.ticks(of: frame)
            if stepDown?.wasShown(ticks: ticks) == true {
                var shown: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&shown)
                continue
            }
            var prime: PrimeFrame?
            if let hardwareFormat {
                let onDevice = frame.pointee.format == hardwareFormat.rawValue
                if !onDevice, lastFrameOnDevice != false, let hardwareWay {
                    say("\(hardwareWay), but the device did not decode its frames (FFmpeg's reason at --log-level debug); "
                        + "decoding in software")
                    stepDown = nil   // nothing to step down from: its packets are not kept
                }
                lastFrameOnDevice = onDevice
                if onDevice {
                    // Not for full-range frames: a plane is told limited range (as the copy path
                    // knows, which leaves such frames to the CPU).
                    prime = primeFrames && handOn?.wanted.load(ordering: .relaxed) == true && frame.pointee.color_range != AVCOL_RANGE_JPEG
                        ? keepOnDevice(frame) : nil
                    if prime != nil, handOn?.copyDown.load(ordering: .relaxed) == false {
                        stepDown?.handedOut(ticks: ticks)
                        return .frame(frame, prime, inMemory: false)
                    }
                    switch download(frame, downloads) {
                    case .success(let copied): frame = copied
                    case .failure(let why):
                        stepDownToSoftware(because: why)
                        continue
                    }
                }
            }
            stepDown?.handedOut(ticks: ticks)
            return .frame(frame, prime, inMemory: true)
        }
    }

    /// A device frame could not be copied down: the rest of the stream decodes in software
    /// (`SoftwareStepDown`), said in one line; where no software decoder opens, that frame and
    /// each later one that fails are dropped, said too.
    private func stepDownToSoftware(because why: HardwareDecodeFailure) {
        let way = hardwareWay ?? "hardware decoding"
        guard let stepDown else {
            // A line not taken yet (why the step down failed) says more than this same failure.
            if hardwareRefusals.isEmpty { say("\(way), but a frame could not be copied down from the device (\(why)); it was dropped") }
            return
        }
        switch stepDown.stepDown(source: source, configure: configureInSoftware) {
        case .success(let (software, resumes)):
            damagedBefore += stream.damagedPackets
            stream = software
            hardwareFormat = nil
            primeFrames = false
            lastFrameOnDevice = false
            say("\(way), but a frame could not be copied down from the device (\(why)); decoding in software from here, \(resumes)")
        case .failure(let error):
            self.stepDown = nil
            say("\(way), but a frame could not be copied down from the device (\(why)) and no software "
                + "decoder opened (\(error.reason)); frames that cannot be copied are dropped")
        }
    }

    /// A packet kept for the step down, sent to the software decoder (nil: the drain).
    private func sendAgain(_ replayed: UnsafeMutablePointer<AVPacket>?) {
        var packet = replayed
        if stream.send(packet) { av_packet_free(&packet) } else { stepDown?.putBack(packet) }   // full: frames first
    }

    /// `frame` as the queue takes it: its time, its turn, shrunk where the screens allow.
    private func wrap(_ decodedFrame: UnsafeMutablePointer<AVFrame>, prime: PrimeFrame?, inMemory: Bool) -> DecodedFrame {
        var frame = decodedFrame
        let ticks = stream.ticks(of: frame)
        let pts = stream.mediaTime(ticks: ticks ?? stream.startTicks)
        let sar = frame.pointee.sample_aspect_ratio
        var frameAspect = sar.num > 0 && sar.den > 0 ? Rational(Int64(sar.num), Int64(sar.den)) : sampleAspect
        // A still's turn is its own frame's (its EXIF), its mirror already applied to the pixels.
        let turn = still?.uprightTurn(for: frame) ?? rotation
        let picture = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let target = still == nil && !shrinkCovering.isEmpty
            ? DecodeShrink.size(of: picture, sampleAspect: frameAspect, quarterTurned: turn.swapsAxes, covering: shrinkCovering,
                                largestFactor: FrameShrinker.largestFactor(for: DecodedFrame.softwareFormat(of: frame)))
            : nil
        if inMemory, let target, let smaller = shrinker.shrink(frame, to: target, sampleAspect: frameAspect) {
            // The scaled frame keeps the decoded one's properties (pts, colour); its SAR is set.
            var decoded: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&decoded)
            frame = smaller
            let corrected = frame.pointee.sample_aspect_ratio
            frameAspect = Rational(Int64(corrected.num), Int64(corrected.den))
        }
        let decoded = inMemory
            ? DecodedFrame(taking: frame, pts: pts, sampleAspect: frameAspect, rotation: turn, hadNoTimestamp: ticks == nil)
            : DecodedFrame(onDevice: frame, weight: weightOnDevice(frame, shrunkTo: target), copyDown: { [handOn] device in
                  let copied = HardwareDecoderSetup.copiedDown(device)
                  if copied == nil { handOn?.failedCopies.wrappingAdd(1, ordering: .relaxed) }
                  return copied
              }, pts: pts, sampleAspect: frameAspect, rotation: turn, hadNoTimestamp: ticks == nil)
        let duration = kiosk_frame_duration(frame)
        if duration > 0 { decoded.ownDuration = stream.mediaTime(ticks: stream.startTicks + duration) }
        if let prime { decoded.prime = PrimePicture(descriptor: prime.descriptor, owner: prime, matrix: decoded.matrix) }
        return decoded
    }

    /// What a frame left on its device weighs in the queue's byte budget: what its copy would
    /// (`target`: shrunk, 8-bit 4:2:0; else its own format), and never less than the device's
    /// pool was sized for (`HardwareFramePool.queuedFrameBytes`, which knows no turn or pixel
    /// shape). Only for such frames: a frame in memory weighs its own bytes.
    private func weightOnDevice(_ frame: UnsafeMutablePointer<AVFrame>, shrunkTo target: PixelSize?) -> Int {
        let softwareFormat = DecodedFrame.softwareFormat(of: frame)
        let picture = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let deep = (av_pix_fmt_desc_get(softwareFormat)?.pointee.comp.0.depth ?? 8) > 8
        let copyBytes = target.map { $0.width * $0.height * 3 / 2 }
            ?? Int(max(0, av_image_get_buffer_size(softwareFormat, frame.pointee.width, frame.pointee.height, 1)))
        return max(copyBytes, HardwareFramePool.queuedFrameBytes(picture: picture, deep: deep, covering: shrinkCovering))
    }

    /// The device frame as DRM PRIME, holding its surface; after the first that cannot be, nil
    /// for the rest of the stream, said once.
    private func keepOnDevice(_ frame: UnsafeMutablePointer<AVFrame>) -> PrimeFrame? {
        switch PrimeFrame.mapping(frame) {
        case .success(let prime):
            return prime
        case .failure(let why):
            primeFrames = false
            say("\(hardwareWay ?? "hardware decoding"): its frames cannot be handed on as DRM PRIME (\(why)); copied to memory only")
            return nil
        }
    }

    /// Feeds a demuxed packet, or nil to drain at the end; false when the decoder is full.
    /// `unshownBefore`: frames before this time are decoded only to reach it (a seek), so the
    /// decoder may skip those no other frame refers to, as mpv's precise seeks do: in a typical
    /// H.264 stream with B-frames that is a third to a half of the frames between the keyframe
    /// and the target, and the seek's catch-up decoding is that much shorter.
    public func send(_ packet: Packet?, unshownBefore target: MediaTime = .zero) -> Bool {
        if let packet {
            let ticks = packet.packet.pointee.pts
            let early = target > .zero && ticks != kiosk_nopts_value()
                && stream.mediaTime(ticks: ticks) < target - MediaTime(value: 1, timescale: 1000)
            stream.skipFrames(early ? AVDISCARD_NONREF : AVDISCARD_DEFAULT)
        }
        if let stepDown, stepDown.hasSteppedDown {
            switch stepDown.admit(packet?.packet) {
            case .queued, .dropped: return true
            case .send: break
            }
        }
        let taken = stream.send(packet?.packet)
        if taken { stepDown?.keep(packet?.packet) }
        return taken
    }

    /// Forgets buffered frames after a seek (the deinterlacer's held one too).
    public func flush() {
        stream.flush()
        stepDown?.forget()
        deinterlacer = nil
        av_frame_free(&deliverUnwoven)
    }
}
