import Yams

/// `usb`: what kiosk does with a USB stick (README, "USB sticks").
public struct UsbConfig: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Sticks are ignored.
        case off
        /// The media at the top of a mounted stick play instead of the configured playlist
        /// until it is pulled out (pi_video_looper's way).
        case play
        /// The stick's media are copied into `copy_to`, then played from there; they keep
        /// playing once the stick is pulled out.
        case copy
    }

    /// The default folder kiosk mounts sticks under (kiosk.service's RuntimeDirectory).
    public static let defaultMountRoot = "/run/kiosk/usb"
    /// The default copy folder (kiosk.service's StateDirectory, kept across boots).
    public static let defaultCopyTo = "/var/lib/kiosk/usb-media"
    /// Left free on the copy folder's file system: 64 MiB, room for logs and the state file.
    public static let defaultMinFree = 64 * 1024 * 1024

    /// `mode`: off | play | copy (`usb: auto` is `play`).
    public var mode: Mode = .off
    /// `mount_root`: where kiosk mounts sticks itself (read-only, nosuid, nodev, noexec), one
    /// folder per partition, when it may mount (root or CAP_SYS_ADMIN). Sticks mounted by the
    /// system (a udev rule, a desktop) are followed wherever they are.
    public var mountRoot = UsbConfig.defaultMountRoot
    /// `copy_to`: copy mode's folder; kiosk's own (it removes media files there that the last
    /// stick did not have).
    public var copyTo = UsbConfig.defaultCopyTo
    /// `min_free`: bytes the copy leaves free on `copy_to`'s file system; a file that would
    /// take it below is not copied (one line).
    public var minFree = UsbConfig.defaultMinFree

    public init() {}
}

extension ConfigWalker {
    func readUsb(_ node: Node?, baseDirectory: String) -> UsbConfig {
        var usb = UsbConfig()
        let modes = UsbConfig.Mode.allCases.map(\.rawValue) + ["auto"]
        if let node, let text = node.scalar?.string, !isNull(node) {
            // `usb: auto` (the issue's shorthand), `usb: play`, `usb: off`.
            if let mode = Self.usbMode(text) { usb.mode = mode }
            else { report(node, "'usb' is '\(text)'; expected one of: \(modes.joined(separator: ", ")), or a map of mode, mount_root, copy_to, min_free") }
            return usb
        }
        guard let section = section(node, name: "usb", allowedKeys: ["mode", "mount_root", "copy_to", "min_free"]) else {
            return usb
        }
        if let text = string(section, "mode", expected: "one of: " + modes.joined(separator: ", ")) {
            if let mode = Self.usbMode(text) { usb.mode = mode }
            else { report(section["mode"], "'mode' in usb is '\(text)'; expected one of: \(modes.joined(separator: ", "))") }
        }
        if let root = string(section, "mount_root", expected: "an absolute folder path like /run/kiosk/usb") {
            if root.hasPrefix("/") { usb.mountRoot = PathText.normalize(root) }
            else { report(section["mount_root"], "'mount_root' in usb is '\(root)'; expected an absolute folder path like /run/kiosk/usb") }
        }
        if let folder = string(section, "copy_to", expected: "the path of a folder of kiosk's own") {
            usb.copyTo = PathText.resolve(folder, against: baseDirectory)
            if usb.copyTo == "/" { report(section["copy_to"], "'copy_to' in usb is '/'; expected a folder of kiosk's own like /var/lib/kiosk/usb-media") }
        }
        if let bytes = byteSize(section, "min_free", expected: "a size (like 64M, 1G, 512K or a number of bytes)") {
            usb.minFree = bytes
        }
        return usb
    }

    static func usbMode(_ text: String) -> UsbConfig.Mode? {
        text.lowercased() == "auto" ? .play : UsbConfig.Mode(rawValue: text.lowercased())
    }
}
