import ArgumentParser
import KioskCore

/// `kiosk play --video-plane auto|off`, as kiosk.conf's `display.video_plane`.
extension VideoPlanePolicy: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
