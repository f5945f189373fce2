import Glibc
import KioskCore
import SystemPackage

/// Everything that can go wrong opening or driving a DRM/KMS display, each with a message a
/// person installing a signage box can act on.
public enum DRMError: Error, Sendable, CustomStringConvertible {
    /// /dev/dri does not exist: no KMS driver is loaded.
    case noDRMDirectory(String)
    /// /dev/dri exists but holds no card* node (render nodes only, or a driver without KMS).
    case noCards(String)
    case noSuchCard(String)
    /// The node exists but this user may not open it.
    case permissionDenied(path: String, group: String?, gid: UInt32)
    case cannotOpen(path: String, errno: Int32)
    /// The path opened but is no DRM device at all.
    case notDRMDevice(String)
    /// The node opened but is not a modesetting device (e.g. a render-only GPU).
    case notModesetting(path: String, errno: Int32)
    /// Another open file (a compositor, another kiosk, a second display in this process) is
    /// DRM master, so this one may not modeset or flip.
    case anotherMaster(path: String, holder: String?)
    /// Choosing connector, mode, CRTC or plane failed on `path`.
    case selection(path: String, DisplaySelectionError)
    /// No card of several has a connected screen; per card, its connectors and their status.
    case noConnectedScreen([(path: String, connectors: [String])])
    case noDumbBuffers(path: String)
    /// `api: .atomic` was asked for and the driver (or kernel) does not offer it.
    case atomicUnsupported(path: String)
    /// A KMS object lacks a property kiosk needs for atomic commits.
    case missingProperty(object: String, name: String)
    /// A libdrm call failed: what was attempted, the call, errno.
    case callFailed(what: String, call: String, errno: Int32)
    case flipTimeout(seconds: Double)
    case foreignBuffer(index: Int)
    /// Another device's frame (a PRIME import) that cannot be a framebuffer, and why.
    case badPrimeFrame(PrimeFrameError)
    /// A flip while the screen is switched off (display power): KMS refuses it on a CRTC that is off.
    case displayOff
    case closed

    public var description: String {
        switch self {
        case .noDRMDirectory(let dir):
            return "no DRM device: \(dir) is missing (no GPU driver loaded?)"
        case .noCards(let dir):
            return "no DRM device: \(dir) has no card* node (no display driver with modesetting loaded?)"
        case .noSuchCard(let path):
            return "no DRM device \(path): no such file (try `ls /dev/dri`)"
        case .permissionDenied(let path, let group, let gid):
            let who = group.map { "group '\($0)'" } ?? "group id \(gid)"
            return "cannot open \(path): permission denied; the user must be in \(who) "
                + "(usermod -aG \(group ?? String(gid)) USER, then log in again) or hold a logind seat"
        case .cannotOpen(let path, let code):
            return "cannot open \(path): \(errnoText(code))"
        case .notDRMDevice(let path):
            return "\(path) is not a DRM device (expected a node like /dev/dri/card0)"
        case .notModesetting(let path, let code):
            return "\(path) is not a modesetting (KMS) device: \(errnoText(code))"
        case .anotherMaster(let path, let holder):
            return "another process is DRM master on \(path)\(holder.map { " (\($0))" } ?? "") — "
                + "a display server or another kiosk is using the screen; stop it first"
        case .selection(let path, let error):
            return "\(path): \(error)"
        case .noConnectedScreen(let cards):
            let perCard = cards.map { "\($0.path): \($0.connectors.isEmpty ? "no connectors" : $0.connectors.joined(separator: ", "))" }
            return "no connected screen on any card; " + perCard.joined(separator: "; ")
        case .noDumbBuffers(let path):
            return "\(path) does not offer dumb buffers (DRM_CAP_DUMB_BUFFER is 0); kiosk cannot draw on it"
        case .atomicUnsupported(let path):
            return "\(path): the driver does not offer atomic modesetting; use the legacy API (api: auto or legacy)"
        case .missingProperty(let object, let name):
            return "\(object) has no '\(name)' property, which kiosk needs"
        case .callFailed(let what, let call, let code):
            return "\(what) failed: \(call): \(errnoText(code))"
        case .flipTimeout(let seconds):
            return "the page flip did not complete within \(seconds) s (display hung or switched off?)"
        case .foreignBuffer(let index):
            return "buffer #\(index) is not a free back buffer of this display"
        case .badPrimeFrame(let error):
            return "another device's frame cannot be shown: \(error)"
        case .displayOff:
            return "the screen is switched off (display power); nothing is shown until it is on"
        case .closed:
            return "the display is closed"
        }
    }

    /// True for the errno values that mean "someone else is master" when a modeset or flip is
    /// refused.
    static func isNotMaster(_ code: Int32) -> Bool { code == EACCES || code == EPERM }
}

extension DRMError: OutputFailure {
    /// `close()` ran (the session gave the screen back) before this call.
    public var isOutputClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}

func errnoText(_ code: Int32) -> String {
    "\(Errno(rawValue: code).description) (errno \(code))"
}
