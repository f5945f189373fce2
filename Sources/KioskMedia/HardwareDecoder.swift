import CFFmpeg
import CKioskShim
import KioskCore
import Synchronization

/// FFmpeg's generic hardware decoding, as mpv's `--hwdec=...-copy` uses it: a device context
/// (`av_hwdevice_ctx_create`) on the codec's own decoder, `get_format` choosing the device's
/// pixel format when the decoder offers it (else the first software format: a profile the
/// hardware lacks decodes in software), and each frame copied down to memory
/// (`av_hwframe_transfer_data`), so everything after the decoder (scaler, planes, screenshots)
/// is the software path's; except, while the zero-copy path shows the device's frames as they
/// are, those it does (`PrimeHandOn.copyDown`). Or FFmpeg's own `*_v4l2m2m` decoder, whose
/// frames are ordinary.
struct HardwareDecoderSetup {
    /// The decoder to open (the codec's own for a device, `h264_v4l2m2m` for a wrapper).
    let codec: UnsafePointer<AVCodec>
    /// The device's pixel format, whose frames must be copied down; nil for a wrapper.
    let hardwareFormat: AVPixelFormat?
    private let device: HardwareDevice?

    /// How `attempt` would decode a `codecID` stream, or why it cannot here.
    static func prepare(_ attempt: HardwareDecodeAttempt, codecID: AVCodecID) -> Result<HardwareDecoderSetup, HardwareDecodeFailure> {
        switch attempt {
        case .decoder(let name):
            guard let codec = avcodec_find_decoder_by_name(name) else { return .failure("this FFmpeg build has no \(name)") }
            return .success(HardwareDecoderSetup(codec: codec, hardwareFormat: nil, device: nil))
        case .device(let name):
            guard let codec = avcodec_find_decoder(codecID) else { return .failure("no decoder") }
            let type = av_hwdevice_find_type_by_name(name)
            guard type != AV_HWDEVICE_TYPE_NONE else { return .failure("this FFmpeg build has no \(name) support") }
            guard let format = deviceFormat(of: codec, for: type) else {
                return .failure("FFmpeg's \(String(cString: codec.pointee.name)) decoder cannot use \(name)")
            }
            return HardwareDevice.shared(type, named: name).map {
                HardwareDecoderSetup(codec: codec, hardwareFormat: format, device: $0)
            }
        }
    }

    /// `attempt` (a device) set up to ask for its format with no device behind it: FFmpeg's
    /// hwaccel then fails to start at the first frame and `get_format` is asked again without it,
    /// so the stream decodes in software on the same decoder: what a device that opens but
    /// cannot decode a profile or a size does. For the tests of that fallback (no device here).
    static func withoutItsDevice(_ attempt: HardwareDecodeAttempt, codecID: AVCodecID) -> Result<HardwareDecoderSetup, HardwareDecodeFailure> {
        guard case .device(let name) = attempt, let codec = avcodec_find_decoder(codecID),
              let format = deviceFormat(of: codec, for: av_hwdevice_find_type_by_name(name)) else {
            return .failure("no \(attempt) format for this codec")
        }
        return .success(HardwareDecoderSetup(codec: codec, hardwareFormat: format, device: nil))
    }

    /// A setup that takes `format`, a software one, for its device's: every frame then counts as
    /// the device's and is copied down. For the tests of what follows a copy down (no device here).
    static func claiming(_ format: AVPixelFormat, codecID: AVCodecID) -> Result<HardwareDecoderSetup, HardwareDecodeFailure> {
        guard let codec = avcodec_find_decoder(codecID) else { return .failure("no decoder") }
        return .success(HardwareDecoderSetup(codec: codec, hardwareFormat: format, device: nil))
    }

    /// The pixel format `codec` decodes into on a device of `type`, if it can.
    private static func deviceFormat(of codec: UnsafePointer<AVCodec>, for type: AVHWDeviceType) -> AVPixelFormat? {
        var index: Int32 = 0
        while let config = avcodec_get_hw_config(codec, index) {
            if config.pointee.methods & Int32(AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX) != 0, config.pointee.device_type == type {
                return config.pointee.pix_fmt
            }
            index += 1
        }
        return nil
    }

    /// Sets the device and the format choice on a context about to be opened, and grows the
    /// frames it may allocate by the `heldFrames` kiosk keeps (`HardwareFramePool`): a V4L2
    /// wrapper's capture buffers always (its frames keep them), a device's pool when its frames
    /// stay on it (`keepsFramesOnDevice`; copied down, a surface is free at once).
    func configure(_ context: UnsafeMutablePointer<AVCodecContext>, heldFrames: Int, keepsFramesOnDevice: Bool) {
        guard let hardwareFormat else {
            if heldFrames > 0, let options = context.pointee.priv_data {
                // Not every wrapper has the option (then nothing changes).
                _ = av_opt_set_int(options, "num_capture_buffers", Int64(HardwareFramePool.captureBuffers(held: heldFrames)), 0)
            }
            return
        }
        if keepsFramesOnDevice { context.pointee.extra_hw_frames = Int32(clamping: heldFrames) }
        if let device { context.pointee.hw_device_ctx = av_buffer_ref(device.reference) }   // none: `withoutItsDevice`
        // The callback is a C function: the format it wants rides in `opaque` (+1, never nil).
        context.pointee.opaque = UnsafeMutableRawPointer(bitPattern: Int(hardwareFormat.rawValue) + 1)
        context.pointee.get_format = chooseHardwareFormat
    }

    /// `frame` in memory: a device frame is copied down (its properties kept) into a block of
    /// `pool` (or FFmpeg's own allocation where the pool's way fails), and freed; nil when the
    /// copy fails.
    static func download(_ frame: UnsafeMutablePointer<AVFrame>, pool: FramePool) -> UnsafeMutablePointer<AVFrame>? {
        try? downloaded(frame, pool: pool).get()
    }

    /// A copy of device frame `frame` in memory (its properties kept; `frame` kept), in an
    /// allocation of its own; nil when the copy fails. For a frame left on its device whose
    /// pixels are read after all, on its reader's thread (`DecodedFrame.frame`).
    static func copiedDown(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<AVFrame>? {
        var copy = av_frame_alloc()
        guard let target = copy, av_hwframe_transfer_data(target, frame, 0) >= 0, av_frame_copy_props(target, frame) >= 0 else {
            av_frame_free(&copy)
            return nil
        }
        return target
    }

    /// As `download`, with FFmpeg's reason when the copy fails.
    static func downloaded(_ frame: UnsafeMutablePointer<AVFrame>, pool: FramePool) -> Result<UnsafeMutablePointer<AVFrame>, HardwareDecodeFailure> {
        var source: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&source) }
        var copy = av_frame_alloc()
        guard let target = copy else { return .failure("out of memory") }
        var result = pool.download(frame, into: target)
        if result >= 0 { result = av_frame_copy_props(target, frame) }
        guard result >= 0 else {
            av_frame_free(&copy)
            return .failure("\(ffmpegErrorText(result))")
        }
        return .success(target)
    }
}

extension VideoDecoder {
    /// Whether a device's frames can be had as DRM PRIME: the `drm` device's are, VA-API's map to
    /// it; CUDA's cannot (NVIDIA's KMS imports no dma-buf of NVDEC's), nor does a wrapper have any.
    static func exportsPrime(_ attempt: HardwareDecodeAttempt) -> Bool {
        attempt == .device("drm") || attempt == .device("vaapi")
    }
}

/// `get_format`: the device's format when offered, else the first software one (FFmpeg lists
/// them last): the stream then decodes in software on the same decoder.
private func chooseHardwareFormat(_ context: UnsafeMutablePointer<AVCodecContext>?,
                                  _ formats: UnsafePointer<AVPixelFormat>?) -> AVPixelFormat {
    guard let formats else { return AV_PIX_FMT_NONE }
    let wanted = Int32(truncatingIfNeeded: Int(bitPattern: context?.pointee.opaque) - 1)
    var software = AV_PIX_FMT_NONE
    var index = 0
    while formats[index] != AV_PIX_FMT_NONE {
        let format = formats[index]
        if format.rawValue == wanted { return format }
        if software == AV_PIX_FMT_NONE, let descriptor = av_pix_fmt_desc_get(format),
           descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0 {
            software = format
        }
        index += 1
    }
    return software
}

/// Why a hardware way was not taken, in words for the log.
struct HardwareDecodeFailure: Error, ExpressibleByStringLiteral, ExpressibleByStringInterpolation, CustomStringConvertible {
    let description: String
    init(stringLiteral value: String) { description = value }
    init(stringInterpolation: DefaultStringInterpolation) { description = String(stringInterpolation: stringInterpolation) }
}

/// One hardware device per type for the whole process, opened the first time an item asks
/// (opening VA-API or CUDA costs tens of milliseconds; an item opens every few seconds), and
/// kept: the decoders of the playing and the prepared item share it. A failed open is
/// remembered too, so a box without the device pays for the attempt once.
final class HardwareDevice: @unchecked Sendable {
    // Safe to share: `reference` is set once and only passed to av_buffer_ref.
    let reference: UnsafeMutablePointer<AVBufferRef>
    private init(reference: UnsafeMutablePointer<AVBufferRef>) { self.reference = reference }

    private static let opened = Mutex<[String: Result<HardwareDevice, HardwareDecodeFailure>]>([:])

    static func shared(_ type: AVHWDeviceType, named name: String) -> Result<HardwareDevice, HardwareDecodeFailure> {
        opened.withLock { devices in
            if let known = devices[name] { return known }
            var reference: UnsafeMutablePointer<AVBufferRef>?
            let result = av_hwdevice_ctx_create(&reference, type, nil, nil, 0)
            let outcome: Result<HardwareDevice, HardwareDecodeFailure> = if result >= 0, let reference {
                .success(HardwareDevice(reference: reference))
            } else {
                .failure("no \(name) device (\(ffmpegErrorText(result)))")
            }
            devices[name] = outcome
            return outcome
        }
    }
}

/// What a hardware choice came to, said once per process for each outcome (a playlist opens
/// the same kinds of streams every pass).
public enum HardwareDecodeLog {
    private static let said = Mutex<Set<String>>([])

    /// `line` the first time it is said; nil after.
    public static func once(_ line: String) -> String? {
        said.withLock { $0.insert(line).inserted ? line : nil }
    }

    /// The reasons of `parts` not said before, as one line; nil when each was. A device's
    /// refusal said alone for one item and followed by a step down for the next is said once.
    public static func once(parts: [String]) -> String? {
        joined(said.withLock { said in parts.filter { said.insert($0).inserted } })
    }

    /// Reasons that came one after the other, as one line.
    public static func joined(_ parts: [String]) -> String? { parts.isEmpty ? nil : parts.joined(separator: "; then ") }
}
