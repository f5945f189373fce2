import KioskCore

/// How to open a DRM/KMS display. The defaults drive the first connected screen of the first
/// card that has one, at its preferred mode, with atomic commits where the driver offers them.
public struct DRMDisplayOptions: Sendable, Hashable {
    public enum API: String, Sendable, Hashable, Codable, CaseIterable {
        /// Atomic when the driver offers it, else legacy.
        case auto
        case atomic
        /// drmModeSetCrtc + drmModePageFlip even where atomic exists.
        case legacy
    }

    /// "/dev/dri/card0" or "card0"; nil: the first card with a connected screen.
    public var card: String?
    /// A connector name as the kernel spells it ("HDMI-A-1", "Virtual-1"); nil: the first
    /// connected one.
    public var connector: String?
    /// nil: the connector's preferred mode. Parse user text with `ModeRequest.parse`.
    public var mode: ModeRequest?
    /// Clockwise turn of the picture on the panel (portrait screens). The primary plane does it
    /// when it can; otherwise `DRMDisplay.softwareRotation` tells the engine to.
    public var rotation: Rotation
    public var api: API
    /// Scanout buffers: 2 (double buffering) or more, to draw ahead with `submit`.
    public var bufferCount: Int
    /// How long a page flip may take before present fails (a hung or unplugged display).
    public var flipTimeout: Double
    public var deviceDirectory: String
    /// kiosk.conf `display.video_plane`: scan decoded YUV frames out on an overlay plane
    /// where the driver has one that takes them (DRMDisplay+DirectVideo.swift).
    public var videoPlane: VideoPlanePolicy = .auto
    /// Attach a writeback connector of the CRTC, where the card has one, so screenshots read
    /// back what the display composes (Writeback.swift); off: kiosk composes them itself.
    public var writeback = true

    public init(card: String? = nil, connector: String? = nil, mode: ModeRequest? = nil, rotation: Rotation = .none,
                api: API = .auto, bufferCount: Int = 2, flipTimeout: Double = 1.0,
                deviceDirectory: String = DRMDevices.defaultDirectory) {
        self.card = card; self.connector = connector; self.mode = mode; self.rotation = rotation
        self.api = api; self.bufferCount = max(2, bufferCount); self.flipTimeout = flipTimeout
        self.deviceDirectory = deviceDirectory
    }
}
