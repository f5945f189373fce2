/// Where to show the picture, as `--display` says: `drm[:CARD[:CONNECTOR[:MODE]]]`,
/// `headless:WxH[@HZ][:vblank][:planes]`, or `auto` (the first DRM card with a connected screen).
public enum DisplaySpec: Sendable, Equatable, CustomStringConvertible {
    case auto
    /// nil fields choose automatically: the first card with a connected connector, its first
    /// connected connector, the preferred mode.
    case drm(card: String?, connector: String?, mode: ModeRequest?)
    /// `pacing` says how the memory display's flips complete: see `HeadlessPacing`. The rate
    /// may be fractional (59.94: a panel's clock is never exactly 60 Hz; sync tests need that).
    /// `planes`: with a simulated YUV/ARGB overlay plane (HeadlessPlaneDisplay), so the direct
    /// video path runs as on a box with planes (benchmarks, previews).
    case headless(PixelSize, refreshRate: Double, pacing: HeadlessPacing = .interval, planes: Bool = false)

    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first?.lowercased() {
        case "auto" where parts.count == 1:
            self = .auto
        case "drm" where parts.count <= 4:
            func field(_ i: Int) -> String? {
                guard parts.count > i, !parts[i].isEmpty, parts[i].lowercased() != "auto" else { return nil }
                return parts[i]
            }
            var mode: ModeRequest?
            if let text = field(3) {
                guard let parsed = ModeRequest(parsing: text) else { return nil }
                mode = parsed
            }
            let card = field(1).map { $0.hasPrefix("/") ? $0 : "/dev/dri/\($0)" }
            self = .drm(card: card, connector: field(2), mode: mode)
        case "headless" where (2...4).contains(parts.count):
            guard let mode = ModeRequest(parsing: parts[1]), mode.size.width <= Self.largestSide, mode.size.height <= Self.largestSide
            else { return nil }
            // The pacing and `planes`, each at most once, in either order.
            var pacing: HeadlessPacing?, planes = false
            for word in parts.dropFirst(2).map({ $0.lowercased() }) {
                if word == "planes", !planes {
                    planes = true
                } else if let named = HeadlessPacing(rawValue: word), pacing == nil {
                    pacing = named
                } else {
                    return nil
                }
            }
            self = .headless(mode.size, refreshRate: mode.refreshHz ?? 60, pacing: pacing ?? .interval, planes: planes)
        default:
            return nil
        }
    }

    /// DRM's limit on a framebuffer's side (kiosk.conf's bound too): a memory screen larger is
    /// a typo that would ask for tens of gigabytes.
    public static let largestSide = 16384

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .drm(let card, let connector, let mode):
            return "drm:\(card ?? "auto"):\(connector ?? "auto"):\(mode?.description ?? "preferred")"
        case .headless(let size, let rate, let pacing, let planes):
            return "headless:\(ModeRequest(size: size, refreshHz: rate))" + (pacing == .interval ? "" : ":\(pacing.rawValue)")
                + (planes ? ":planes" : "")
        }
    }
}

/// How a headless display's flips complete, standing in for the two kinds of KMS driver kiosk
/// meets: virtual GPUs (bochs, virtio-gpu) answer a flip at once, so flips are only kept a
/// refresh apart (`interval`); a real panel scans out on a fixed vblank grid, so a flip
/// completes at the next tick of that grid, however early it was asked for (`vblank`).
public enum HeadlessPacing: String, Sendable, Hashable, CaseIterable {
    case interval, vblank
}

// ModeRequest (`1920x1080`, `1920x1080@60`, `1920x1080@59.94`) lives in DisplayMode.swift, next to
// the mode selection that matches it against a connector's modes.
