import ArgumentParser
import KioskCore

/// `kiosk play --video-plane auto|off`, as kiosk.conf's `display.video_plane`.
extension VideoPlanePolicy: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `kiosk play --deinterlace auto|on|off` (and `kiosk bench`'s), as kiosk.conf's `playback.deinterlace`.
extension Deinterlacing: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// `kiosk play --hwdec off|auto|vaapi|...`, as kiosk.conf's `playback.hwdec`.
extension HardwareDecoding: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
