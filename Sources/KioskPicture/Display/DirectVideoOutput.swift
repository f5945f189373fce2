/// The direct video path: a display that can scan a decoded YUV frame out on a plane of its
/// own (the hardware scales it), so the engine skips the CPU conversion. A capability next to
/// `VideoOutput`, in the spirit of mpv's hwdec/overlay interop: the engine asks, and uses it
/// only when the answer is yes; otherwise the CPU path draws into `backBuffer()` as always.

/// kiosk.conf `display.video_plane`, `kiosk play --video-plane`.
public enum VideoPlanePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Use a YUV plane where the driver has one and accepts the configuration.
    case auto
    /// Always convert on the CPU into the primary plane's XRGB8888 buffer.
    case off
}

/// A decoded planar picture as plain memory: what the direct path copies into a plane's buffer.
/// A view only: the frame it was made from must stay alive while it is used.
public struct YUVFrameView: @unchecked Sendable {
    public struct Plane: @unchecked Sendable {
        public let base: UnsafeRawPointer
        /// Bytes per row (FFmpeg's linesize); positive.
        public let stride: Int
        public init(base: UnsafeRawPointer, stride: Int) { self.base = base; self.stride = stride }
    }

    public let format: VideoFrameFormat
    /// Coded size in luma pixels.
    public let size: PixelSize
    /// Y, U, V for yuv420p; Y, interleaved UV for nv12.
    public let planes: [Plane]
    /// The YUV-to-RGB matrix the picture was made for (limited range: full-range frames stay on
    /// the CPU path), as the CPU path would convert it.
    public let matrix: YUVMatrix

    public init?(format: VideoFrameFormat, size: PixelSize, planes: [Plane], matrix: YUVMatrix = .bt601) {
        let expected = format == .yuv420p ? 3 : format == .nv12 ? 2 : 0
        guard expected > 0, planes.count == expected, !size.isEmpty,
              planes.allSatisfy({ $0.stride > 0 }) else { return nil }
        self.format = format; self.size = size; self.planes = planes; self.matrix = matrix
    }
}

/// The colour matrices a plane's COLOR_ENCODING property names (drm_color_mgmt.c).
public enum YUVMatrix: String, Sendable, Hashable, CaseIterable {
    case bt601, bt709, bt2020

    /// The property's enum entry for this matrix.
    public var drmEncodingName: String {
        switch self {
        case .bt601: return "ITU-R BT.601 YCbCr"
        case .bt709: return "ITU-R BT.709 YCbCr"
        case .bt2020: return "ITU-R BT.2020 YCbCr"
        }
    }

    /// COLOR_RANGE's entry for the limited (16-235) range kiosk's plane frames have.
    public static let drmLimitedRangeName = "YCbCr limited range"
}

/// What a direct output says about one configuration (format, frame size, layout).
public enum DirectScanoutAnswer: Sendable, Hashable {
    /// Tested and ready: `presentDirect` shows frames so.
    case ready(PlaneScanout)
    /// Not for this configuration (no plane fits, the OSD needs the CPU picture...): the CPU
    /// path draws; another configuration may fit.
    case unavailable(reason: String)
    /// The display will not scan out directly at all (policy off, legacy API, the driver refused
    /// a TEST_ONLY commit): the CPU path for good.
    case refused(reason: String)

    public var reason: String? {
        switch self {
        case .ready: return nil
        case .unavailable(let reason), .refused(let reason): return reason
        }
    }
}

public protocol DirectVideoOutput: VideoOutput {
    /// How a `format` frame of `frameSize` laid out by `layout` (made for `size` with
    /// `softwareRotation`, as the CPU path lays it out) would be shown. May allocate buffers
    /// and run a TEST_ONLY commit; the engine calls it again only when the configuration
    /// changes.
    func prepareDirectScanout(format: VideoFrameFormat, frameSize: PixelSize, layout: GravityLayout) -> DirectScanoutAnswer
    /// Copies `frame` into a plane buffer (no conversion) and shows it as `scanout` says, the
    /// primary plane black behind it; returns once the flip is done, with its CLOCK_MONOTONIC
    /// time in seconds. A throw means the configuration failed at run time.
    func presentDirect(_ frame: YUVFrameView, on scanout: PlaneScanout) throws -> Double
}

extension PlaneSelection {
    /// The layout the engine made for a display's buffers, turned into the plane's terms: a
    /// display that rotates in software lays the video out on the physical screen already (the
    /// layout's rotation carries the display's turn); one that rotates with its primary plane
    /// lays it out upright, and `displayRotation` maps it onto the CRTC.
    public static func chooseDirectScanout(format: VideoFrameFormat, layout: GravityLayout, displayRotation: Rotation,
                                           primaryPlaneID: UInt32?, crtcIndex: Int, crtcID: UInt32,
                                           planes: [DisplayPlaneInfo]) -> DirectScanoutAnswer {
        let candidates = videoScanoutCandidates(format: format, layout: layout, displayRotation: displayRotation,
                                                crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
        // The primary plane keeps the XRGB picture (bars, OSD, idle screen): switching paths is
        // then only a change of the overlay plane.
        if let overlay = candidates.first(where: { $0.planeID != primaryPlaneID && $0.planeType == .overlay }) {
            return .ready(overlay)
        }
        if candidates.isEmpty {
            if case .cpu(let reason) = chooseVideoScanout(format: format, layout: layout, displayRotation: displayRotation,
                                                          crtcIndex: crtcIndex, crtcID: crtcID, planes: planes) {
                return .unavailable(reason: reason)
            }
        }
        let names = format.drmFormats.map(\.description).joined(separator: "/")
        return .unavailable(reason: "only the primary plane takes \(names); kiosk keeps it for the XRGB picture")
    }

    /// The overlay plane for another device's frame of DRM format `format` (zero copy), as for a
    /// decoded frame: never the primary plane, which keeps the XRGB picture the copy and CPU
    /// paths fall back to. No plane: refused, with the reason (zero copy is off from then on).
    /// `modifier`: the frame's layout, which the plane's IN_FORMATS must list (its vendor's
    /// parameter aside); `invalid` (none said) takes the driver's default.
    public static func choosePrimeScanout(format: FourCC, modifier: UInt64, layout: GravityLayout,
                                          displayRotation: Rotation = .none, primaryPlaneID: UInt32?, crtcIndex: Int, crtcID: UInt32,
                                          planes: [DisplayPlaneInfo]) -> DirectScanoutAnswer {
        let result = primeScanoutCandidates(format: format, modifier: modifier, layout: layout, displayRotation: displayRotation,
                                            crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
        if let overlay = result.candidates.first(where: { $0.planeID != primaryPlaneID && $0.planeType == .overlay }) {
            return .ready(overlay)
        }
        return .refused(reason: result.candidates.isEmpty ? result.reason
                        : "only the primary plane takes \(format); kiosk keeps it for the XRGB picture")
    }
}
