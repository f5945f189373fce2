import Glibc
import KioskCore
import SystemPackage

/// Why kiosk could not reach the TV over HDMI-CEC. Every case names the device and says what to
/// do, because the operator reading it is at the box with a TV that did not react.
public enum CECError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No /dev/cecN at all: the HDMI port has no CEC driver, or it is not loaded.
    case noAdapter(directory: String)
    /// The device exists but this user may not open it; `group` owns the node (udev: video).
    case permissionDenied(path: String, group: String?)
    /// Opening failed otherwise (gone, not a CEC device...).
    case openFailed(path: String, errno: Int32)
    /// An ioctl failed; `call` is its <linux/cec.h> name.
    case callFailed(path: String, call: String, errno: Int32)
    /// The physical address is f.f.f.f: no sink (TV) on the other end of the cable, or its EDID
    /// unread, so the adapter has no logical address to send from.
    case notConnected(path: String)
    /// The adapter has no usable logical address and kiosk cannot (or must not) claim one.
    case cannotClaim(path: String, reason: String)
    /// The message left but the bus said no: `status` is the kernel's tx_status.
    case transmitFailed(path: String, message: CECMessage, status: CECTransmitStatus)

    /// The kind of failure, so a follower reports each kind once rather than at every change.
    public enum Kind: String, Sendable, Hashable {
        case noAdapter, permissionDenied, openFailed, callFailed, notConnected, cannotClaim
        case nack, timeout, transmitFailed
    }

    public var kind: Kind {
        switch self {
        case .noAdapter: .noAdapter
        case .permissionDenied: .permissionDenied
        case .openFailed: .openFailed
        case .callFailed: .callFailed
        case .notConnected: .notConnected
        case .cannotClaim: .cannotClaim
        case .transmitFailed(_, _, let status):
            status.contains(.nack) ? .nack : status.contains(.timeout) ? .timeout : .transmitFailed
        }
    }

    public var description: String {
        switch self {
        case .noAdapter(let directory):
            return "no HDMI-CEC adapter: no \(directory)/cec* device (the HDMI port's CEC driver is "
                + "missing or not loaded; on a Raspberry Pi it comes with the vc4 KMS driver)"
        case .permissionDenied(let path, let group):
            let join = group.map { "add kiosk's user to the group '\($0)' that owns it (usermod -aG \($0) USER)" }
                ?? "give kiosk's user access to it"
            return "\(path): permission denied: \(join)"
        case .openFailed(let path, let code):
            return "\(path): cannot open: \(errorText(code))"
        case .callFailed(let path, let call, let code):
            return "\(path): \(call) failed: \(errorText(code))\(hint(call: call, errno: code))"
        case .notConnected(let path):
            return "\(path): physical address f.f.f.f: no TV connected to this HDMI port (or its EDID "
                + "was not read), so the adapter has no logical address to send from"
        case .cannotClaim(let path, let reason):
            return "\(path): no logical address to send from: \(reason)"
        case .transmitFailed(let path, let message, let status):
            return "\(path): \(message) failed (\(status)): \(status.explanation(destination: message.destination))"
        }
    }

    private func hint(call: String, errno code: Int32) -> String {
        switch (call, code) {
        case (_, EBUSY): "; another program (a CEC daemon, cec-ctl) holds the adapter as its exclusive initiator"
        case ("CEC_TRANSMIT", ENONET): "; the adapter is not configured (the TV was disconnected)"
        default: ""
        }
    }
}

func errorText(_ code: Int32) -> String {
    Errno(rawValue: code).description
}
