/// `playback.hwdec`: which of FFmpeg's hardware decoders kiosk asks for, through FFmpeg's generic
/// API only (a device context and `get_format`, or FFmpeg's own `*_v4l2m2m` decoders): no
/// hand-written VA-API or V4L2 code. Every way falls back to software decoding, said in one line.
public enum HardwareDecoding: String, Sendable, CaseIterable {
    /// Software decoding only (the default: no hardware path could be tried where kiosk is tested).
    case off
    /// The first of the ways below that opens on this box, for each stream.
    case auto
    /// VA-API (Intel, AMD): `/dev/dri/renderD128`.
    case vaapi
    /// DRM PRIME frames: Raspberry Pi's FFmpeg build (`--enable-v4l2-request`) for the Pi 4/5
    /// HEVC block; upstream FFmpeg has no decoder behind it.
    case drm
    /// NVIDIA's NVDEC.
    case cuda
    /// A stateful V4L2 memory-to-memory decoder (Pi 4's H.264): FFmpeg's `h264_v4l2m2m` and kin.
    case v4l2m2m

    /// The codecs FFmpeg has a `*_v4l2m2m` decoder for.
    static let v4l2Codecs: Set<String> = ["h264", "hevc", "mpeg2video", "mpeg4", "vp8", "vp9", "h263", "vc1"]

    /// What to try, in order, for a stream of `codec` (FFmpeg's codec name, like `h264`).
    public func attempts(codec: String) -> [HardwareDecodeAttempt] {
        let wrapper = Self.v4l2Codecs.contains(codec) ? [HardwareDecodeAttempt.decoder("\(codec)_v4l2m2m")] : []
        switch self {
        case .off: return []
        case .auto: return [.device("vaapi"), .device("cuda"), .device("drm")] + wrapper
        case .vaapi, .drm, .cuda: return [.device(rawValue)]
        case .v4l2m2m: return wrapper
        }
    }
}

/// One way to decode a stream in hardware.
public enum HardwareDecodeAttempt: Sendable, Equatable, CustomStringConvertible {
    /// The codec's own decoder with a hardware device of this FFmpeg type name (`vaapi`): FFmpeg
    /// calls it a hwaccel; frames come back in the device's memory and are copied down.
    case device(String)
    /// A decoder of its own that drives the hardware (`h264_v4l2m2m`); its frames are ordinary.
    case decoder(String)

    public var description: String {
        switch self {
        case .device(let type): type
        case .decoder(let name): name
        }
    }
}
