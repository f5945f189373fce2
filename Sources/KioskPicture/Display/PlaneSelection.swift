/// Planes as plain data and the choice of which plane shows what: the primary plane for the
/// CPU-drawn XRGB8888 picture, and, where the hardware allows, a plane that scans a decoded
/// frame out directly (NV12/YUV420) and scales it for free.

public enum PlaneType: String, Sendable, Hashable, Codable {
    case overlay, primary, cursor
}

/// Whether a plane can scale. KMS has no property that says so; the "SCALING_FILTER" property
/// (Linux 5.11+) implies it, otherwise only an atomic TEST_ONLY commit can tell.
public enum PlaneScaling: String, Sendable, Hashable, Codable {
    case yes, no, unknown
}

public struct DisplayPlaneInfo: Sendable, Hashable, Codable {
    public var id: UInt32
    public var type: PlaneType
    /// Bit i set: usable with the CRTC at index i.
    public var possibleCRTCs: UInt32
    public var formats: [FourCC]
    public var currentCRTCID: UInt32
    public var currentFramebufferID: UInt32
    /// nil when the plane has no "rotation" property.
    public var rotation: PlaneRotationSupport?
    public var scaling: PlaneScaling
    /// The (format, modifiers) pairs of its IN_FORMATS property; nil where the driver has none
    /// (it then scans out linear buffers, or its default layout, only).
    public var modifiers: [FourCC: [UInt64]]?

    public init(id: UInt32, type: PlaneType, possibleCRTCs: UInt32, formats: [FourCC], currentCRTCID: UInt32 = 0,
                currentFramebufferID: UInt32 = 0, rotation: PlaneRotationSupport? = nil, scaling: PlaneScaling = .unknown,
                modifiers: [FourCC: [UInt64]]? = nil) {
        self.id = id; self.type = type; self.possibleCRTCs = possibleCRTCs; self.formats = formats
        self.currentCRTCID = currentCRTCID; self.currentFramebufferID = currentFramebufferID
        self.rotation = rotation; self.scaling = scaling; self.modifiers = modifiers
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, possibleCRTCs, formats, currentCRTCID, currentFramebufferID, rotation, scaling, modifiers
    }

    /// Modifiers are written as hex strings ({"NV12": ["0x0", "0x700000000000004"]}): as JSON
    /// numbers, a vendor's 64-bit values lose their low bits in jq and JavaScript (doubles).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(possibleCRTCs, forKey: .possibleCRTCs)
        try container.encode(formats, forKey: .formats)
        try container.encode(currentCRTCID, forKey: .currentCRTCID)
        try container.encode(currentFramebufferID, forKey: .currentFramebufferID)
        try container.encodeIfPresent(rotation, forKey: .rotation)
        try container.encode(scaling, forKey: .scaling)
        try container.encodeIfPresent(modifiers?.mapValues { $0.map { "0x" + String($0, radix: 16) } }, forKey: .modifiers)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UInt32.self, forKey: .id)
        type = try container.decode(PlaneType.self, forKey: .type)
        possibleCRTCs = try container.decode(UInt32.self, forKey: .possibleCRTCs)
        formats = try container.decode([FourCC].self, forKey: .formats)
        currentCRTCID = try container.decode(UInt32.self, forKey: .currentCRTCID)
        currentFramebufferID = try container.decode(UInt32.self, forKey: .currentFramebufferID)
        rotation = try container.decodeIfPresent(PlaneRotationSupport.self, forKey: .rotation)
        scaling = try container.decode(PlaneScaling.self, forKey: .scaling)
        modifiers = try container.decodeIfPresent([FourCC: [String]].self, forKey: .modifiers)?.mapValues { texts in
            try texts.map { text in
                guard text.hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) else {
                    throw DecodingError.dataCorruptedError(forKey: .modifiers, in: container, debugDescription: "\(text) is no modifier in hex")
                }
                return value
            }
        }
    }

    /// The modifiers its IN_FORMATS lists for `format` (none where it lists not that format);
    /// nil without IN_FORMATS.
    public func listedModifiers(for format: FourCC) -> [UInt64]? {
        modifiers.map { $0[format] ?? [] }
    }

    /// Whether it scans out a frame of `format` laid out as `modifier` says (a vendor's
    /// parameter aside: `FormatModifier.plane(listing:takes:)`); without IN_FORMATS, linear only.
    public func takes(_ format: FourCC, modifier: UInt64) -> Bool {
        guard formats.contains(format) else { return false }
        let listed = listedModifiers(for: format) ?? [FormatModifier.linear]
        return modifier == FormatModifier.invalid || listed.contains { FormatModifier.plane(listing: $0, takes: modifier) }
    }

    public func canDrive(crtcIndex: Int) -> Bool { crtcIndex >= 0 && crtcIndex < 32 && possibleCRTCs & (1 << UInt32(crtcIndex)) != 0 }

    /// True when the plane can show `rotation` (clockwise); no rotation needs no property.
    public func supports(_ rotation: Rotation) -> Bool {
        rotation == .none || (self.rotation?.supports(rotation) ?? false)
    }
}

/// The pixel layouts a decoder hands over, and the DRM formats that scan them out unconverted.
public enum VideoFrameFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case nv12, yuv420p, xrgb8888

    public var drmFormats: [FourCC] {
        switch self {
        case .nv12: return [.nv12]
        case .yuv420p: return [.yuv420]
        case .xrgb8888: return [.xrgb8888, .argb8888]
        }
    }

    /// 4:2:0 chroma: plane source rectangles must start and end on even pixels.
    public var isChromaSubsampled: Bool { self != .xrgb8888 }
}

/// A frame scanned out by a plane: `source` in the frame's coded pixels, `destination` on the
/// CRTC (physical pixels, after the display's rotation), `rotation` clockwise.
public struct PlaneScanout: Sendable, Hashable {
    public var planeID: UInt32
    public var planeType: PlaneType
    public var format: FourCC
    public var source: PixelRect
    public var destination: PixelRect
    public var rotation: Rotation
    /// The plane's scaling is unknown: try the configuration with a TEST_ONLY commit first.
    public var needsTestCommit: Bool
}

public enum VideoScanoutPlan: Sendable, Hashable {
    case plane(PlaneScanout)
    /// Convert and scale on the CPU into the primary plane's XRGB8888 buffer, and why.
    case cpu(reason: String)
}

public enum PlaneSelection {
    /// The primary plane of the CRTC at `crtcIndex` (id `crtcID`) that takes XRGB8888,
    /// preferring the one already on that CRTC.
    public static func primaryPlane(crtcIndex: Int, crtcID: UInt32,
                                    planes: [DisplayPlaneInfo]) throws(DisplaySelectionError) -> DisplayPlaneInfo {
        let usable = planes.filter { $0.type == .primary && $0.canDrive(crtcIndex: crtcIndex) && $0.formats.contains(.xrgb8888) }
        guard let plane = usable.first(where: { $0.currentCRTCID == crtcID }) ?? usable.first else {
            throw .noPrimaryPlane(crtcIndex: crtcIndex)
        }
        return plane
    }

    /// Every plane that could scan a `format` frame laid out by `layout` on the CRTC at
    /// `crtcIndex`, best first: overlays (the primary keeps drawing the black bars and the
    /// OSD) before the primary; known scalers before unknown ones. The primary plane only
    /// qualifies when the picture covers the whole screen: many drivers refuse a primary plane
    /// smaller than its CRTC. `layout.target` is the logical screen; `displayRotation` turns it
    /// onto the CRTC.
    public static func videoScanoutCandidates(format: VideoFrameFormat, layout: GravityLayout,
                                              displayRotation: Rotation = .none, crtcIndex: Int, crtcID: UInt32,
                                              planes: [DisplayPlaneInfo]) -> [PlaneScanout] {
        videoScanout(format: format, layout: layout, displayRotation: displayRotation,
                     crtcIndex: crtcIndex, crtcID: crtcID, planes: planes).candidates
    }

    /// The best candidate, or the CPU path with the reason no plane fits.
    public static func chooseVideoScanout(format: VideoFrameFormat, layout: GravityLayout,
                                          displayRotation: Rotation = .none, crtcIndex: Int, crtcID: UInt32,
                                          planes: [DisplayPlaneInfo]) -> VideoScanoutPlan {
        let result = videoScanout(format: format, layout: layout, displayRotation: displayRotation,
                                  crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
        if let best = result.candidates.first { return .plane(best) }
        return .cpu(reason: result.reason)
    }

    /// Candidates for another device's frame of DRM format `format` (a PRIME import: NV12,
    /// P010...), ranked as for a decoded frame, or why there are none.
    static func primeScanoutCandidates(format: FourCC, modifier: UInt64, layout: GravityLayout, displayRotation: Rotation,
                                       crtcIndex: Int, crtcID: UInt32,
                                       planes: [DisplayPlaneInfo]) -> (candidates: [PlaneScanout], reason: String) {
        videoScanout(drmFormats: [format], modifier: modifier, chromaSubsampled: [FourCC.nv12, .p010, .p030, .yuv420].contains(format),
                     layout: layout, displayRotation: displayRotation, crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
    }

    private static func videoScanout(format: VideoFrameFormat, layout: GravityLayout, displayRotation: Rotation,
                                     crtcIndex: Int, crtcID: UInt32,
                                     planes: [DisplayPlaneInfo]) -> (candidates: [PlaneScanout], reason: String) {
        videoScanout(drmFormats: format.drmFormats, chromaSubsampled: format.isChromaSubsampled, layout: layout,
                     displayRotation: displayRotation, crtcIndex: crtcIndex, crtcID: crtcID, planes: planes)
    }

    /// `modifier`: the frame's layout (another device's frame); `invalid` for kiosk's own
    /// buffers, which every plane of their format scans out.
    private static func videoScanout(drmFormats: [FourCC], modifier: UInt64 = FormatModifier.invalid, chromaSubsampled: Bool,
                                     layout: GravityLayout, displayRotation: Rotation, crtcIndex: Int, crtcID: UInt32,
                                     planes: [DisplayPlaneInfo]) -> (candidates: [PlaneScanout], reason: String) {
        let rotation = layout.rotation + displayRotation
        let source = chromaSubsampled ? evenAligned(layout.sourceCrop) : layout.sourceCrop
        let destination = displayRotation.map(layout.destination, in: layout.target)
        let screen = displayRotation.swapsAxes ? layout.target.transposed : layout.target
        let shown = rotation.swapsAxes ? source.size.transposed : source.size
        let needsScaling = shown != destination.size
        let coversScreen = destination == PixelRect(size: screen)
        let formatNames = drmFormats.map(\.description).joined(separator: "/")

        // Each stage narrows the planes; the first stage that leaves none names the reason.
        var remaining = planes.filter { $0.type != .cursor && $0.canDrive(crtcIndex: crtcIndex) }
        remaining = remaining.filter { $0.currentCRTCID == 0 || $0.currentCRTCID == crtcID }
        guard !remaining.isEmpty else { return ([], "no free plane on CRTC #\(crtcIndex)") }
        remaining = remaining.filter { plane in drmFormats.contains(where: plane.formats.contains) }
        guard !remaining.isEmpty else { return ([], "no plane on CRTC #\(crtcIndex) takes \(formatNames)") }
        // A decoder's tiled layout (a Pi's SAND128) goes only where IN_FORMATS lists it.
        remaining = remaining.filter { plane in drmFormats.contains { plane.takes($0, modifier: modifier) } }
        guard !remaining.isEmpty else {
            return ([], "no plane on CRTC #\(crtcIndex) takes \(formatNames) laid out as \(FormatModifier.name(modifier))")
        }
        remaining = remaining.filter { $0.supports(rotation) }
        guard !remaining.isEmpty else { return ([], "no plane taking \(formatNames) can rotate \(rotation.degrees)°") }
        if needsScaling {
            remaining = remaining.filter { $0.scaling != .no }
            guard !remaining.isEmpty else {
                return ([], "no plane taking \(formatNames) can scale \(shown) to \(destination.size)")
            }
        }
        remaining = remaining.filter { $0.type == .overlay || coversScreen }
        guard !remaining.isEmpty else {
            return ([], "only the primary plane takes \(formatNames) and the picture (\(destination)) does not cover the screen")
        }
        let ranked = remaining.sorted { a, b in
            let rankA = (a.type == .overlay ? 0 : 1, a.scaling == .yes || !needsScaling ? 0 : 1, a.id)
            let rankB = (b.type == .overlay ? 0 : 1, b.scaling == .yes || !needsScaling ? 0 : 1, b.id)
            return rankA < rankB
        }
        let candidates = ranked.map { plane in
            PlaneScanout(planeID: plane.id, planeType: plane.type,
                         format: drmFormats.first(where: plane.formats.contains)!,
                         source: source, destination: destination, rotation: rotation,
                         needsTestCommit: needsScaling && plane.scaling != .yes)
        }
        return (candidates, "")
    }

    /// 4:2:0 planes need even offsets and sizes: start rounded up, end rounded down.
    public static func evenAligned(_ rect: PixelRect) -> PixelRect {
        let x = (rect.x + 1) & ~1, y = (rect.y + 1) & ~1
        let maxX = rect.maxX & ~1, maxY = rect.maxY & ~1
        return PixelRect(x: x, y: y, width: Swift.max(2, maxX - x), height: Swift.max(2, maxY - y))
    }
}
