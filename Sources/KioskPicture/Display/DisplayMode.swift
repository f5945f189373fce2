/// A display mode as KMS describes it (`drm_mode_modeinfo`), kept whole so it can be handed back
/// to the kernel unchanged, plus what kiosk derives from it: the exact refresh rate and interval.
public struct DisplayMode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pixel clock in kHz, as the kernel stores it.
    public var clockKHz: UInt32
    public var hdisplay: UInt16, hsyncStart: UInt16, hsyncEnd: UInt16, htotal: UInt16, hskew: UInt16
    public var vdisplay: UInt16, vsyncStart: UInt16, vsyncEnd: UInt16, vtotal: UInt16, vscan: UInt16
    /// The kernel's rounded refresh rate (`vrefresh`), e.g. 60 for 59.94 Hz.
    public var nominalRefresh: UInt32
    /// DRM_MODE_FLAG_* bits (interlace, doublescan, sync polarities...).
    public var flags: UInt32
    /// DRM_MODE_TYPE_* bits (preferred, driver, userdef...).
    public var type: UInt32
    public var name: String

    // drm_mode.h values; KioskCore does not import C, so they are spelled out here.
    public static let flagInterlace: UInt32 = 1 << 4
    public static let flagDoubleScan: UInt32 = 1 << 5
    public static let typePreferred: UInt32 = 1 << 3

    public init(clockKHz: UInt32, hdisplay: UInt16, hsyncStart: UInt16, hsyncEnd: UInt16, htotal: UInt16,
                hskew: UInt16 = 0, vdisplay: UInt16, vsyncStart: UInt16, vsyncEnd: UInt16, vtotal: UInt16,
                vscan: UInt16 = 0, nominalRefresh: UInt32, flags: UInt32 = 0, type: UInt32 = 0, name: String = "") {
        self.clockKHz = clockKHz
        self.hdisplay = hdisplay; self.hsyncStart = hsyncStart; self.hsyncEnd = hsyncEnd; self.htotal = htotal; self.hskew = hskew
        self.vdisplay = vdisplay; self.vsyncStart = vsyncStart; self.vsyncEnd = vsyncEnd; self.vtotal = vtotal; self.vscan = vscan
        self.nominalRefresh = nominalRefresh; self.flags = flags; self.type = type
        self.name = name.isEmpty ? "\(hdisplay)x\(vdisplay)" : name
    }

    public var size: PixelSize { PixelSize(width: Int(hdisplay), height: Int(vdisplay)) }
    public var isPreferred: Bool { type & Self.typePreferred != 0 }
    public var isInterlaced: Bool { flags & Self.flagInterlace != 0 }

    /// Refreshes (fields for interlaced modes) per second as a fraction: pixel clock over the
    /// pixels of one refresh, the way the kernel's drm_mode_vrefresh() computes it, but unrounded.
    public var refreshRate: Rational? {
        var pixelsPerRefresh = Int64(htotal) * Int64(vtotal)
        if isInterlaced { pixelsPerRefresh /= 2 }      // a field is half the lines
        if flags & Self.flagDoubleScan != 0 { pixelsPerRefresh *= 2 }
        if vscan > 1 { pixelsPerRefresh *= Int64(vscan) }
        guard clockKHz > 0, pixelsPerRefresh > 0 else { return nil }
        return Rational(Int64(clockKHz) * 1000, pixelsPerRefresh)
    }

    /// Refresh rate in Hz: exact from the timings, else the kernel's rounded `vrefresh`.
    public var refreshHz: Double {
        refreshRate?.doubleValue ?? Double(nominalRefresh)
    }

    /// Time between two refreshes. Exact (a rational of the timings) when the timings are
    /// complete; 1/vrefresh, or 1/60 s as a last resort, for drivers that leave them empty.
    public var refreshInterval: MediaTime {
        if let rate = refreshRate, rate.numerator <= Int64(Int32.max) {
            return MediaTime(value: rate.denominator, timescale: Int32(rate.numerator))
        }
        if let rate = refreshRate { return MediaTime(seconds: 1 / rate.doubleValue, timescale: 1_000_000) }
        return MediaTime(value: 1, timescale: Int32(nominalRefresh > 0 ? nominalRefresh : 60))
    }

    /// "1920x1080@60.00", and "i" for interlaced.
    public var description: String {
        let hz = (refreshHz * 100).rounded() / 100
        let whole = Int(hz), hundredths = Int(((hz - Double(whole)) * 100).rounded())
        return "\(hdisplay)x\(vdisplay)\(isInterlaced ? "i" : "")@\(whole).\(hundredths < 10 ? "0" : "")\(hundredths)"
    }
}

/// What the user asked for: `1920x1080`, `1920x1080@60`, `1920x1080@59.94`; nil means the
/// connector's preferred mode.
public struct ModeRequest: Sendable, Hashable, CustomStringConvertible {
    public var size: PixelSize
    public var refreshHz: Double?

    public init(size: PixelSize, refreshHz: Double? = nil) { self.size = size; self.refreshHz = refreshHz }

    /// A whole-hertz request, as `--display headless:WxH@HZ` takes it.
    public init(size: PixelSize, refreshRate: Int?) { self.init(size: size, refreshHz: refreshRate.map(Double.init)) }

    /// The refresh rounded to whole hertz (59.94 -> 60), for outputs that only take integers.
    public var refreshRate: Int? { refreshHz.map { Int($0.rounded()) } }

    /// A concrete size, with or without refresh; nil for anything else, "preferred" included
    /// (callers that accept it check for it first).
    public init?(parsing text: String) {
        guard let request = try? Self.parse(text) else { return nil }   // try? flattens: nil for "preferred" too
        self = request
    }

    /// Parses a mode spec. "preferred" and "auto" (any case) and the empty string give nil:
    /// the connector's preferred mode.
    public static func parse(_ text: String) throws(DisplaySelectionError) -> ModeRequest? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty || ["preferred", "auto"].contains(trimmed.lowercased()) { return nil }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let size = PixelSize(parsing: String(parts[0])) else {
            throw .invalidModeSpec(text)
        }
        var refresh: Double?
        if parts.count == 2 {
            let hzText = parts[1].lowercased().hasSuffix("hz") ? String(parts[1].dropLast(2)) : String(parts[1])
            guard let hz = Double(hzText), hz.isFinite, hz > 0, hz < 1000 else { throw .invalidModeSpec(text) }
            refresh = hz
        }
        return ModeRequest(size: size, refreshHz: refresh)
    }

    public var description: String {
        guard let hz = refreshHz else { return size.description }
        return hz == hz.rounded() ? "\(size)@\(Int(hz))" : "\(size)@\(hz)"
    }
}

public enum ModeSelection {
    /// How far a mode's refresh may be from the requested one and still match: 60 takes
    /// 59.94 and 60.00; 50 does not take 60.
    public static let refreshTolerance = 0.5

    /// The mode of `modes` (a connector's list) that `request` names, or the preferred one for
    /// nil. Among equal sizes: the closest refresh when one was asked for, else the preferred
    /// mode, then progressive over interlaced, then the highest refresh.
    public static func choose(_ request: ModeRequest?, from modes: [DisplayMode],
                              connector: String) throws(DisplaySelectionError) -> DisplayMode {
        guard !modes.isEmpty else { throw .noModes(connector: connector) }
        guard let request else {
            return modes.first(where: \.isPreferred) ?? modes[0]
        }
        var candidates = modes.filter { $0.size == request.size }
        if let hz = request.refreshHz {
            candidates = candidates.filter { abs($0.refreshHz - hz) <= refreshTolerance }
            if let best = candidates.min(by: { abs($0.refreshHz - hz) < abs($1.refreshHz - hz) }) { return best }
        } else if let best = candidates.max(by: { rank($0) < rank($1) }) {
            return best
        }
        throw .modeNotOffered(requested: request.description, connector: connector,
                              available: uniqueDescriptions(modes))
    }

    private static func rank(_ mode: DisplayMode) -> (Int, Int, Double) {
        (mode.isPreferred ? 1 : 0, mode.isInterlaced ? 0 : 1, mode.refreshHz)
    }

    /// Mode names without repeats, in the connector's order, preferred marked.
    public static func uniqueDescriptions(_ modes: [DisplayMode]) -> [String] {
        var seen = Set<String>(), result: [String] = []
        for mode in modes {
            let text = mode.description + (mode.isPreferred ? " (preferred)" : "")
            if seen.insert(text).inserted { result.append(text) }
        }
        return result
    }
}
